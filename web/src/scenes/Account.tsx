import { useMutation } from '@tanstack/react-query';
import { useContext, useState, type FormEvent } from 'react';
import { api, call, ApiError, errorMessage } from '../api/client';
import { PageHeading } from '../common/PageHeading';
import { MeContext } from '../session';
import { EndpointNotices } from './EndpointNotices';

/** Minimum length of a password (console-api.yaml changePassword). */
const MIN_PASSWORD = 10;

/**
 * The signed-in account: who it is, "Change password" (which ends its other sessions), and the
 * endpoint health mails per workspace.
 */
export function Account() {
  const me = useContext(MeContext);
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const change = useMutation({
    mutationFn: () => call(api.POST('/me/password', { body: { current_password: current, new_password: next } })),
    meta: { ownUnauthorized: true },
    onSuccess: () => {
      setCurrent('');
      setNext('');
    },
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    change.mutate();
  }
  const param = change.error instanceof ApiError ? change.error.param : undefined;
  return (
    <section>
      <PageHeading title="Your account" sub={<p className="hint">{me ? `${me.account.name} <${me.account.email}>` : null}</p>} />
      <form className="card narrow" onSubmit={submit}>
        <h2>Change password</h2>
        <label htmlFor="current-password">Current password</label>
        <input
          id="current-password"
          type="password"
          autoComplete="current-password"
          required
          value={current}
          onChange={(e) => setCurrent(e.target.value)}
          aria-invalid={param === 'current_password' || undefined}
        />
        <label htmlFor="new-password">New password</label>
        <input
          id="new-password"
          type="password"
          autoComplete="new-password"
          required
          minLength={MIN_PASSWORD}
          value={next}
          onChange={(e) => setNext(e.target.value)}
          aria-invalid={param === 'new_password' || undefined}
          aria-describedby="new-password-hint"
        />
        <p id="new-password-hint" className="hint">
          At least {MIN_PASSWORD} characters. Your other sessions end; this one stays.
        </p>
        {change.isError ? (
          <p role="alert" className="error">
            {errorMessage(change.error)}
          </p>
        ) : null}
        <div role="status">{change.isSuccess ? <p>Password changed. Other sessions of your account have ended.</p> : null}</div>
        <div className="actions">
          <button type="submit" className="primary" disabled={change.isPending}>
            {change.isPending ? 'Changing…' : 'Change password'}
          </button>
        </div>
      </form>
      <EndpointNotices />
    </section>
  );
}
