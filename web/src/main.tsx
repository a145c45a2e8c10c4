import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Router } from 'wouter';
import { ApiError } from './api/client';
import { App } from './app';
import { ME_KEY } from './api/queries';
import './styles.css';

/**
 * React: the ecosystem's default for a single-page app, so the people who will work on this know
 * it, Testing Library and TanStack Query are built around it, and with react-dom it stays well
 * inside the 200 KB budget (web/budget.ts). No UI kit: native elements and one CSS file.
 */

function onApiError(error: unknown) {
  // Any answer "no session" (expired, signed out elsewhere) sends the person back to sign-in.
  if (error instanceof ApiError && error.status === 401) queryClient.setQueryData(ME_KEY, null);
}

const queryClient: QueryClient = new QueryClient({
  // A query may answer 401 as its own answer (meta.ownUnauthorized: an invitation link refused).
  queryCache: new QueryCache({ onError: (error, query) => !query.meta?.ownUnauthorized && onApiError(error) }),
  // A mutation may answer 401 for a wrong current password (meta.ownUnauthorized): not an ended session.
  mutationCache: new MutationCache({ onError: (error, _v, _c, mutation) => !mutation.meta?.ownUnauthorized && onApiError(error) }),
  defaultOptions: {
    queries: {
      // Deliveries, pauses and stats change on the server by themselves (the worker): a page shows
      // what it has at once and asks again whenever it is opened.
      staleTime: 0,
      // A refusal (4xx) will not change by asking again; a network blip might.
      retry: (count, error) => count < 2 && !(error instanceof ApiError && error.status >= 400 && error.status < 500),
    },
  },
});

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <Router base="/console">
        <App />
      </Router>
    </QueryClientProvider>
  </StrictMode>,
);
