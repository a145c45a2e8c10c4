import { useEffect, useState } from 'react';

/**
 * The token of a link's fragment (`#token=...`: never sent to a server, so never in a log or a
 * Referer), read when the page opens and removed from the address bar at once, so it is not left
 * in the history or shown over someone's shoulder; the page keeps it in memory only. Undefined
 * until read, null when the address has none. (React's StrictMode runs the effect twice; the
 * second run finds the address bar already cleared and keeps the token read by the first.)
 */
export function useFragmentToken(): string | null | undefined {
  const [token, setToken] = useState<string | null | undefined>(undefined);
  useEffect(() => {
    const read = () => {
      const found = new URLSearchParams(window.location.hash.slice(1)).get('token');
      if (found) {
        history.replaceState(history.state, '', window.location.pathname + window.location.search);
        setToken(found);
      } else {
        setToken((known) => known ?? null);
      }
    };
    read();
    // A link opened in a tab that already shows this page changes only the fragment: no reload.
    window.addEventListener('hashchange', read);
    return () => window.removeEventListener('hashchange', read);
  }, []);
  return token;
}
