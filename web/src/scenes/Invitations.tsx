import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, call, errorMessage, ApiError } from '../api/client';
import { keys, useInvitations, type Invitation, type Role } from '../api/queries';
import { StatusBadge } from '../common/Badge';
import { ConfirmChangeDialog } from '../common/ConfirmChangeDialog';
import { EmptyState, ListState } from '../common/ListState';
import { Time } from '../common/Time';
import type { CurrentWorkspace } from '../session';
import { manageable, ROLES } from '../roles';

/** How long an invitation works (console-api.yaml createInvitation). */
const INVITATION_DAYS = 7;

/** "Invite someone": an address and a role; the invited person gets a mail with a link. */
export function InviteForm(props: { workspace: CurrentWorkspace }) {
  const { workspace } = props;
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const invite = useMutation({
    mutationFn: async () =>
      (
        await call(
          api.POST('/workspaces/{workspaceId}/invitations', { params: { path: { workspaceId: workspace.id } }, body: { email: email.trim(), role } }),
        )
      ).data,
    onSuccess: async () => {
      setEmail('');
      await queryClient.invalidateQueries({ queryKey: keys.invitations(workspace.id) });
    },
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    invite.mutate();
  }
  const param = invite.error instanceof ApiError ? invite.error.param : undefined;
  return (
    <form className="card invite" onSubmit={submit}>
      <h2>Invite someone</h2>
      <div className="row">
        <div className="grow">
          <label htmlFor="invite-email">Email</label>
          <input
            id="invite-email"
            type="email"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            aria-invalid={param === 'email' || undefined}
          />
        </div>
        <div>
          <label htmlFor="invite-role">Role</label>
          <select id="invite-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ROLES.filter((r) => manageable(workspace, r)).map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="primary" disabled={invite.isPending}>
          {invite.isPending ? 'Sending…' : 'Send invitation'}
        </button>
      </div>
      <p className="hint">
        They get a mail with a link that works once, for {INVITATION_DAYS} days. Without an account, they choose a name and password when
        they accept.
      </p>
      <div role="status">{invite.isSuccess ? <p className="notice">Invitation sent to {invite.data.email}.</p> : null}</div>
      {invite.isError ? (
        <p role="alert" className="error">
          {errorMessage(invite.error)}
        </p>
      ) : null}
    </form>
  );
}

/** The open invitations: pending ones, and expired ones not yet revoked. */
export function Invitations(props: { workspace: CurrentWorkspace }) {
  const { workspace } = props;
  const list = useInvitations(workspace.id);
  const [revoking, setRevoking] = useState<Invitation | null>(null);
  return (
    <>
      <h2>Pending invitations</h2>
      <ListState query={list} what="the invitations" />
      {list.data && list.data.length === 0 ? (
        <EmptyState>
          <p>No pending invitations.</p>
        </EmptyState>
      ) : null}
      {list.data && list.data.length > 0 ? (
        <table className="middle">
          <caption className="visually-hidden">Pending invitations of this workspace</caption>
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Invited by</th>
              <th scope="col">Expires</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((invitation) => (
              <tr key={invitation.id}>
                <th scope="row">{invitation.email}</th>
                <td>{invitation.role}</td>
                <td>{invitation.invited_by ? invitation.invited_by.name || invitation.invited_by.email : '—'}</td>
                <td>
                  <Time at={invitation.expires_at} />
                </td>
                <td>
                  <StatusBadge status={invitation.status} />
                </td>
                <td className="row-actions">
                  {manageable(workspace, invitation.role) ? (
                    <button
                      type="button"
                      className="danger"
                      aria-label={`Revoke the invitation of ${invitation.email}`}
                      onClick={() => setRevoking(invitation)}
                    >
                      Revoke
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {revoking ? <RevokeDialog workspaceId={workspace.id} invitation={revoking} onClose={() => setRevoking(null)} /> : null}
    </>
  );
}

function RevokeDialog(props: { workspaceId: string; invitation: Invitation; onClose: () => void }) {
  return (
    <ConfirmChangeDialog
      title={`Revoke the invitation of ${props.invitation.email}?`}
      confirmLabel="Revoke invitation"
      change={() =>
        call(
          api.POST('/workspaces/{workspaceId}/invitations/{invitationId}/revoke', {
            params: { path: { workspaceId: props.workspaceId, invitationId: props.invitation.id } },
          }),
        )
      }
      refresh={[keys.invitations(props.workspaceId)]}
      onClose={props.onClose}
    >
      <p>The link in their mail stops working at once. You can invite them again later.</p>
    </ConfirmChangeDialog>
  );
}
