import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, Redirect, useLocation, useSearch } from 'wouter';
import { api, call, errorMessage, ApiError } from '../api/client';
import { ME_KEY, type Me } from '../api/queries';
import { useFragmentToken } from '../common/fragmentToken';
import { to } from '../routes';
import { EmailLinkStatus, useEmailLink } from './EmailLinkRequest';
import { MailNote } from '../common/MailNote';

/**
 * Sign in with email and password, or with a one-time link `/console/sign-in#token=...`: the
 * token is in the fragment so it never reaches a log or a Referer; the page sends it once and
 * removes it from the address bar. "Email me a sign-in link" mails such a link to the address
 * typed; "Forgot your password?" leads to the reset by emailed link.
 */
export function SignIn() {
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const next = safeNext(new URLSearchParams(useSearch()).get('next'));
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');

  function signedIn(me: Me) {
    queryClient.setQueryData(ME_KEY, me);
    navigate(next, { replace: true });
  }

  const withPassword = useMutation({
    mutationFn: async () => (await call(api.POST('/session', { body: { email, password } }))).data,
    onSuccess: signedIn,
  });
  const withLink = useMutation({
    mutationFn: async (token: string) => (await call(api.POST('/session/link', { body: { token } }))).data,
    onSuccess: signedIn,
  });

  // A link's token is single use: send each token once, even when React runs effects twice (StrictMode).
  const token = useFragmentToken();
  const sent = useRef<string | null>(null);
  useEffect(() => {
    if (!token || sent.current === token) return;
    sent.current = token;
    withLink.mutate(token);
  }, [token, withLink]);

  function submit(event: FormEvent) {
    event.preventDefault();
    withPassword.mutate();
  }

  // "Email me a sign-in link" uses the address typed above; the form's own check says when it is missing.
  const emailField = useRef<HTMLInputElement>(null);
  const emailLink = useEmailLink('sign-in');
  function askForLink() {
    if (!emailField.current?.reportValidity()) return;
    emailLink.mutate(email.trim());
  }

  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);

  // Already signed in in this tab (a bookmark, the back button): straight on, unless a link is
  // being used (it may be another account's).
  const known = queryClient.getQueryData<Me | null>(ME_KEY);
  if (known && token === null && sent.current === null) return <Redirect to={next} replace />;

  return (
    <main id="main" className="centered">
      <section className="card sign-in">
        <h1 ref={heading} tabIndex={-1}>
          Sign in to Offerdesk
        </h1>
        {withLink.isPending ? (
          <p role="status" className="loading">
            Signing you in with your link…
          </p>
        ) : null}
        {withLink.isError ? (
          <p role="alert" className="error">
            {linkError(withLink.error)}
          </p>
        ) : null}
        <form onSubmit={submit} noValidate={false}>
          <label htmlFor="email">Email</label>
          <input
            id="email"
            ref={emailField}
            type="email"
            autoComplete="username"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
          <label htmlFor="password">Password</label>
          <input
            id="password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
          {withPassword.isError ? (
            <p role="alert" className="error">
              {errorMessage(withPassword.error)}
            </p>
          ) : null}
          <button type="submit" className="primary" disabled={withPassword.isPending || withLink.isPending}>
            {withPassword.isPending ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
        <div className="other-ways">
          <button type="button" onClick={askForLink} disabled={emailLink.isPending}>
            {emailLink.isPending ? 'Sending…' : 'Email me a sign-in link'}
          </button>
          <Link href={to.resetPassword()}>Forgot your password?</Link>
        </div>
        <EmailLinkStatus request={emailLink} what="a sign-in link" />
        <p className="hint">No password? The sign-in link signs you in without one.</p>
        <MailNote />
      </section>
    </main>
  );
}

function linkError(error: unknown): string {
  if (error instanceof ApiError && error.status === 401) {
    return 'This sign-in link has expired or was already used. Ask for a new link, or sign in with your password below.';
  }
  return errorMessage(error);
}

/** Only paths of the console itself, so a crafted ?next= cannot send anyone elsewhere. */
function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/sign-in') ? next : '/';
}
