import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, useLocation } from 'wouter';
import { api, call, errorMessage, ApiError } from '../api/client';
import { ME_KEY } from '../api/queries';
import { useFragmentToken } from '../common/fragmentToken';
import { to } from '../routes';
import { EmailLinkStatus, useEmailLink } from './EmailLinkRequest';

/** Minimum length of a password (console-api.yaml resetPassword). */
const MIN_PASSWORD = 10;

/**
 * "Forgot your password?": without a token, ask for a reset link by email; with the link's token
 * (`/console/reset-password#token=...`), choose a new password. Setting it ends every other session
 * of the account and signs this browser in.
 */
export function ResetPassword() {
  const token = useFragmentToken();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = 'Reset your password · Offerdesk console';
    heading.current?.focus();
  }, []);
  return (
    <main id="main" className="centered">
      <section className="card sign-in">
        <h1 ref={heading} tabIndex={-1}>
          {token ? 'Choose a new password' : 'Reset your password'}
        </h1>
        {token === undefined ? null : token ? <NewPassword token={token} /> : <AskForLink />}
        <p className="hint">
          <Link href={to.signIn()}>Back to sign-in</Link>
        </p>
      </section>
    </main>
  );
}

function AskForLink() {
  const [email, setEmail] = useState('');
  const request = useEmailLink('reset');
  function submit(event: FormEvent) {
    event.preventDefault();
    request.mutate(email.trim());
  }
  return (
    <form onSubmit={submit}>
      <p className="hint">We mail a link to your address; with it you choose a new password.</p>
      <label htmlFor="reset-email">Email</label>
      <input id="reset-email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
      <EmailLinkStatus request={request} what="a password-reset link" />
      <button type="submit" className="primary" disabled={request.isPending}>
        {request.isPending ? 'Sending…' : 'Email me a reset link'}
      </button>
    </form>
  );
}

function NewPassword(props: { token: string }) {
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const [password, setPassword] = useState('');
  const reset = useMutation({
    mutationFn: async () => (await call(api.POST('/password-reset/complete', { body: { token: props.token, new_password: password } }))).data,
    meta: { ownUnauthorized: true },
    onSuccess: (me) => {
      queryClient.setQueryData(ME_KEY, me);
      navigate('/', { replace: true });
    },
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    reset.mutate();
  }
  const linkUsed = reset.error instanceof ApiError && reset.error.status === 401;
  return (
    <form onSubmit={submit}>
      <label htmlFor="new-password">New password</label>
      <input
        id="new-password"
        type="password"
        autoComplete="new-password"
        required
        minLength={MIN_PASSWORD}
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        aria-describedby="new-password-hint"
      />
      <p id="new-password-hint" className="hint">
        At least {MIN_PASSWORD} characters. You are signed out everywhere else.
      </p>
      {reset.isError ? (
        <p role="alert" className="error">
          {linkUsed ? (
            <>
              This link has expired or was already used. <Link href={to.resetPassword()}>Ask for a new one</Link>.
            </>
          ) : (
            errorMessage(reset.error)
          )}
        </p>
      ) : null}
      <button type="submit" className="primary" disabled={reset.isPending}>
        {reset.isPending ? 'Saving…' : 'Set password and sign in'}
      </button>
    </form>
  );
}
