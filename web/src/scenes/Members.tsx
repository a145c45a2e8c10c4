import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useContext, useState } from 'react';
import { api, call, errorMessage } from '../api/client';
import { keys, ME_KEY, useMembers, type Member, type Role } from '../api/queries';
import { ConfirmChangeDialog } from '../common/ConfirmChangeDialog';
import { EmptyState, ListState } from '../common/ListState';
import { NotFoundState } from '../common/NotFoundState';
import { PageHeading } from '../common/PageHeading';
import { manageable, ROLES } from '../roles';
import { MeContext, useCurrentWorkspace, type CurrentWorkspace } from '../session';
import { Invitations, InviteForm } from './Invitations';

/**
 * Who belongs to the workspace (console-api.yaml "Members"). Owners and admins invite people by
 * email, change roles and remove members, by the rules of the domain: an admin never touches an
 * owner (the page offers no such control), and the last owner stays (the server says so).
 */
export function Members() {
  const workspace = useCurrentWorkspace();
  if (!workspace) return <NotFoundState what="workspace" />;
  return <MembersOf workspace={workspace} />;
}

function MembersOf(props: { workspace: CurrentWorkspace }) {
  const { workspace } = props;
  const me = useContext(MeContext);
  const list = useMembers(workspace.id);
  const queryClient = useQueryClient();
  const [removing, setRemoving] = useState<Member | null>(null);
  const changeRole = useMutation({
    mutationFn: (input: { member: Member; role: Role }) =>
      call(
        api.PATCH('/workspaces/{workspaceId}/members/{accountId}', {
          params: { path: { workspaceId: workspace.id, accountId: input.member.id } },
          body: { role: input.role },
        }),
      ),
    onSettled: async (_data, _error, input) => {
      await queryClient.invalidateQueries({ queryKey: keys.members(workspace.id) });
      // Your own role in the switcher and the permissions of every page.
      if (input.member.id === me?.account.id) await queryClient.invalidateQueries({ queryKey: ME_KEY });
    },
  });

  return (
    <section>
      <PageHeading title="Members" sub={<p className="hint">Who can sign in to {workspace.name}, and with which role.</p>} />
      {workspace.canChange ? <InviteForm workspace={workspace} /> : null}
      <h2>People</h2>
      <ListState query={list} what="the members" />
      {list.data && list.data.length === 0 ? (
        <EmptyState>
          <p>Nobody is a member of this workspace.</p>
        </EmptyState>
      ) : null}
      {changeRole.isError ? (
        <p role="alert" className="error">
          {errorMessage(changeRole.error)}
        </p>
      ) : null}
      {list.data && list.data.length > 0 ? (
        <table className="middle">
          <caption className="visually-hidden">Members of this workspace</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((member) => (
              <tr key={member.id}>
                <th scope="row">
                  {member.name}
                  {member.id === me?.account.id ? <span className="hint"> (you)</span> : null}
                </th>
                <td>{member.email}</td>
                <td>
                  {manageable(workspace, member.role) ? (
                    <select
                      aria-label={`Role of ${member.name}`}
                      value={member.role}
                      disabled={changeRole.isPending}
                      onChange={(event) => changeRole.mutate({ member, role: event.target.value as Role })}
                    >
                      {ROLES.filter((role) => manageable(workspace, role)).map((role) => (
                        <option key={role} value={role}>
                          {role}
                        </option>
                      ))}
                    </select>
                  ) : (
                    member.role
                  )}
                </td>
                <td className="row-actions">
                  {manageable(workspace, member.role) ? (
                    <button type="button" className="danger" aria-label={`Remove ${member.name}`} onClick={() => setRemoving(member)}>
                      Remove
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <Invitations workspace={workspace} />
      {removing ? <RemoveDialog workspaceId={workspace.id} member={removing} onClose={() => setRemoving(null)} /> : null}
    </section>
  );
}

function RemoveDialog(props: { workspaceId: string; member: Member; onClose: () => void }) {
  return (
    <ConfirmChangeDialog
      title={`Remove ${props.member.name}?`}
      confirmLabel="Remove member"
      change={() =>
        call(
          api.DELETE('/workspaces/{workspaceId}/members/{accountId}', {
            params: { path: { workspaceId: props.workspaceId, accountId: props.member.id } },
          }),
        )
      }
      refresh={[keys.members(props.workspaceId), ME_KEY]}
      onClose={props.onClose}
    >
      <p>
        {props.member.email} can no longer open this workspace. Their account stays; invite them again to bring them back.
      </p>
    </ConfirmChangeDialog>
  );
}
