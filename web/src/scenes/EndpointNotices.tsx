import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useContext, useState } from 'react';
import { api, call, errorMessage } from '../api/client';
import { ME_KEY, type Me, type Workspace } from '../api/queries';
import { EmptyState } from '../common/ListState';
import { MeContext } from '../session';

/**
 * Per workspace, whether you get its endpoint health mails (an endpoint failing, 3 final
 * failures in a row, paused, recovered). Only your own setting; the others of the workspace keep theirs.
 */
export function EndpointNotices() {
  const me = useContext(MeContext);
  const queryClient = useQueryClient();
  // The value just clicked, held from the click itself: the mutation's own pending state arrives a
  // tick later, and a controlled checkbox would show the old value until then.
  const [clicked, setClicked] = useState<{ workspaceId: string; on: boolean } | null>(null);
  const toggle = useMutation({
    mutationFn: async (input: { workspace: Workspace; on: boolean }) =>
      (
        await call(
          api.PATCH('/me/workspaces/{workspaceId}', {
            params: { path: { workspaceId: input.workspace.id } },
            body: { endpoint_notices: input.on },
          }),
        )
      ).data,
    onSuccess: (changed) =>
      queryClient.setQueryData<Me | null>(ME_KEY, (old) =>
        old ? { ...old, workspaces: old.workspaces.map((w) => (w.id === changed.id ? changed : w)) } : old,
      ),
    onSettled: () => setClicked(null),
  });
  const workspaces = me?.workspaces ?? [];
  return (
    <form className="card narrow" onSubmit={(event) => event.preventDefault()}>
      <h2>Endpoint health mails</h2>
      <p className="hint">A mail when a webhook endpoint of the workspace starts failing, is paused, or recovers.</p>
      {workspaces.length === 0 ? (
        <EmptyState>
          <p>You are not a member of any workspace yet.</p>
        </EmptyState>
      ) : (
        <fieldset>
          <legend className="visually-hidden">Send me endpoint health mails for</legend>
          {workspaces.map((workspace) => (
            <div key={workspace.id} className="toggle">
              <input
                id={`notices-${workspace.id}`}
                type="checkbox"
                checked={clicked?.workspaceId === workspace.id ? clicked.on : workspace.endpoint_notices}
                disabled={clicked !== null}
                onChange={(event) => {
                  setClicked({ workspaceId: workspace.id, on: event.target.checked });
                  toggle.mutate({ workspace, on: event.target.checked });
                }}
              />
              <label htmlFor={`notices-${workspace.id}`}>Endpoint health mails for {workspace.name}</label>
            </div>
          ))}
        </fieldset>
      )}
      <div role="status">
        {toggle.isSuccess ? (
          <p className="notice">
            Endpoint health mails for {toggle.data.name} are {toggle.data.endpoint_notices ? 'on' : 'off'}.
          </p>
        ) : null}
      </div>
      {toggle.isError ? (
        <p role="alert" className="error">
          {errorMessage(toggle.error)}
        </p>
      ) : null}
    </form>
  );
}
