import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, useLocation } from 'wouter';
import { api, call, errorMessage, ApiError } from '../api/client';
import { ME_KEY } from '../api/queries';
import { useFragmentToken } from '../common/fragmentToken';
import { to } from '../routes';

const MIN_PASSWORD = 10;
const ROLE_WORDS = { owner: 'an owner', admin: 'an admin', member: 'a member' } as const;

/**
 * An invitation link (`/console/invitation#token=...`): what it invites to, then "Accept". An
 * address without an account chooses a name and a password here; one with an account is signed in.
 * Either way the browser then opens the workspace.
 */
export function AcceptInvitation() {
  const token = useFragmentToken();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = 'Invitation · Offerdesk console';
    heading.current?.focus();
  }, []);
  return (
    <main id="main" className="centered">
      <section className="card sign-in">
        <h1 ref={heading} tabIndex={-1}>
          Join a workspace
        </h1>
        {token === undefined ? null : token ? <Invitation token={token} /> : <Unusable />}
      </section>
    </main>
  );
}

function Unusable(props: { message?: string }) {
  return (
    <>
      <p role="alert" className="error">
        {props.message ?? 'This invitation link is incomplete.'} Ask whoever invited you to send a new invitation.
      </p>
      <p className="hint">
        <Link href={to.signIn()}>Go to sign-in</Link>
      </p>
    </>
  );
}

function Invitation(props: { token: string }) {
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const preview = useQuery({
    queryKey: ['invitation', props.token],
    queryFn: async () => (await call(api.POST('/invitations/preview', { body: { token: props.token } }))).data,
    retry: false,
    staleTime: Infinity,
    // A refused token is an answer of this page, not an ended session.
    meta: { ownUnauthorized: true },
  });
  const accept = useMutation({
    mutationFn: async () =>
      (
        await call(
          api.POST('/invitations/accept', {
            body: preview.data?.has_account ? { token: props.token } : { token: props.token, name: name.trim(), password },
          }),
        )
      ).data,
    meta: { ownUnauthorized: true },
    onSuccess: (me) => {
      queryClient.setQueryData(ME_KEY, me);
      navigate('/', { replace: true });
    },
  });

  if (preview.isPending) {
    return (
      <p role="status" className="loading">
        Loading the invitation…
      </p>
    );
  }
  if (preview.isError) {
    const gone = preview.error instanceof ApiError && preview.error.status === 401;
    return <Unusable message={gone ? 'This invitation was used, revoked or has expired.' : errorMessage(preview.error)} />;
  }
  const invitation = preview.data;
  function submit(event: FormEvent) {
    event.preventDefault();
    accept.mutate();
  }
  const param = accept.error instanceof ApiError ? accept.error.param : undefined;
  return (
    <form onSubmit={submit}>
      <p>
        {invitation.invited_by ?? 'Someone'} invited <strong>{invitation.email}</strong> to <strong>{invitation.workspace_name}</strong> as{' '}
        {ROLE_WORDS[invitation.role]}.
      </p>
      {invitation.has_account ? (
        <p className="hint">You have an account with this address: accepting signs you in to it.</p>
      ) : (
        <>
          <p className="hint">Choose your name and a password for your new account.</p>
          <label htmlFor="invitee-name">Your name</label>
          <input
            id="invitee-name"
            autoComplete="name"
            required
            maxLength={200}
            value={name}
            onChange={(e) => setName(e.target.value)}
            aria-invalid={param === 'name' || undefined}
          />
          <label htmlFor="invitee-password">Password</label>
          <input
            id="invitee-password"
            type="password"
            autoComplete="new-password"
            required
            minLength={MIN_PASSWORD}
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            aria-invalid={param === 'password' || undefined}
            aria-describedby="invitee-password-hint"
          />
          <p id="invitee-password-hint" className="hint">
            At least {MIN_PASSWORD} characters.
          </p>
        </>
      )}
      {accept.isError ? (
        <p role="alert" className="error">
          {errorMessage(accept.error)}
        </p>
      ) : null}
      <button type="submit" className="primary" disabled={accept.isPending}>
        {accept.isPending ? 'Joining…' : invitation.has_account ? 'Accept and sign in' : 'Accept and create account'}
      </button>
    </form>
  );
}
