import { useState } from 'react';
import { api, call } from '../api/client';
import { keys, useApiKeys, type ApiKey } from '../api/queries';
import { StatusBadge } from '../common/Badge';
import { ConfirmChangeDialog } from '../common/ConfirmChangeDialog';
import { EmptyState, ListState, MoreButton } from '../common/ListState';
import { NotFoundState } from '../common/NotFoundState';
import { PageHeading } from '../common/PageHeading';
import { Time } from '../common/Time';
import { useCurrentWorkspace } from '../session';
import { CreateKeyDialog } from './CreateKeyDialog';

/** console-api.yaml "API keys": owners and admins create and revoke a workspace's API keys. */
export function ApiKeys() {
  const workspace = useCurrentWorkspace();
  if (!workspace) return <NotFoundState what="workspace" />;
  return <ApiKeysOf workspaceId={workspace.id} canChange={workspace.canChange} />;
}

function ApiKeysOf(props: { workspaceId: string; canChange: boolean }) {
  const list = useApiKeys(props.workspaceId);
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);

  return (
    <section>
      <PageHeading title="API keys">
        <button type="button" className="primary" disabled={!props.canChange} onClick={() => setCreating(true)}>
          Create key
        </button>
      </PageHeading>
      <p className="lead">A key reads this workspace's offers through the API. Its whole value is shown once, when it is created.</p>
      <ListState query={list} what="API keys" />
      {list.items && list.items.length === 0 ? (
        <EmptyState>
          <p>No API keys yet. {props.canChange ? 'Create one to read offers through the API.' : 'An owner or admin can create one.'}</p>
        </EmptyState>
      ) : null}
      {list.items && list.items.length > 0 ? (
        <table>
          <caption className="visually-hidden">API keys of this workspace</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Created by</th>
              <th scope="col">Created</th>
              <th scope="col">Expires</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.items.map((key) => (
              <tr key={key.id}>
                <th scope="row">{key.name}</th>
                <td>
                  <code>{key.prefix}…</code>
                </td>
                <td>{key.created_by ? key.created_by.name || key.created_by.email : '—'}</td>
                <td>
                  <Time at={key.created_at} />
                </td>
                <td>
                  <Time at={key.expires_at} empty="never" />
                </td>
                <td>
                  <StatusBadge status={key.status} />
                </td>
                <td className="row-actions">
                  {key.status === 'active' ? (
                    <button
                      type="button"
                      className="danger"
                      disabled={!props.canChange}
                      aria-label={`Revoke ${key.name}`}
                      onClick={() => setRevoking(key)}
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
      <MoreButton query={list} />
      {creating ? <CreateKeyDialog workspaceId={props.workspaceId} onClose={() => setCreating(false)} /> : null}
      {revoking ? <RevokeDialog workspaceId={props.workspaceId} apiKey={revoking} onClose={() => setRevoking(null)} /> : null}
    </section>
  );
}

function RevokeDialog(props: { workspaceId: string; apiKey: ApiKey; onClose: () => void }) {
  return (
    <ConfirmChangeDialog
      title={`Revoke ${props.apiKey.name}?`}
      confirmLabel="Revoke key"
      change={() =>
        call(
          api.POST('/workspaces/{workspaceId}/api-keys/{keyId}/revoke', {
            params: { path: { workspaceId: props.workspaceId, keyId: props.apiKey.id } },
          }),
        )
      }
      refresh={[keys.apiKeys(props.workspaceId)]}
      onClose={props.onClose}
    >
      <p>
        Requests with <code>{props.apiKey.prefix}…</code> are refused from the moment you revoke it. This cannot be undone;
        integrations that use it need a new key.
      </p>
    </ConfirmChangeDialog>
  );
}
