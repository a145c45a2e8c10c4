import { useState } from 'react';
import { useEndpoints } from '../api/queries';
import { EmptyState, ListState, MoreButton } from '../common/ListState';
import { NotFoundState } from '../common/NotFoundState';
import { PageHeading } from '../common/PageHeading';
import { useCurrentWorkspace } from '../session';
import { EndpointCard } from './EndpointCard';
import { EndpointForm } from './EndpointForm';

/** console-api.yaml "Limits": at most 5 endpoints per workspace. */
const ENDPOINTS_PER_WORKSPACE = 5;

/** console-api.yaml "Webhook endpoints": a workspace's endpoints, their health and actions. */
export function Endpoints() {
  const workspace = useCurrentWorkspace();
  const list = useEndpoints(workspace?.id ?? '');
  const [adding, setAdding] = useState(false);
  if (!workspace) return <NotFoundState what="workspace" />;
  const count = list.items?.length ?? 0;
  const full = count >= ENDPOINTS_PER_WORKSPACE;

  return (
    <section>
      <PageHeading
        title="Webhook endpoints"
        sub={
          list.items ? (
            <p className="hint">
              {count} of {ENDPOINTS_PER_WORKSPACE} endpoints
              {full ? ': remove one to add another.' : ''}
            </p>
          ) : null
        }
      >
        <button type="button" className="primary" disabled={!workspace.canChange || full} onClick={() => setAdding(true)}>
          Add endpoint
        </button>
      </PageHeading>
      <ListState query={list} what="webhook endpoints" />
      {list.items && list.items.length === 0 ? (
        <EmptyState>
          <p>
            No endpoints yet. {workspace.canChange ? 'Add one to receive signed webhooks when offers are sent, viewed, signed or accepted.' : 'An owner or admin can add one.'}
          </p>
        </EmptyState>
      ) : null}
      <ul className="cards">
        {list.items?.map((endpoint) => (
          <li key={endpoint.id}>
            <EndpointCard workspaceId={workspace.id} endpoint={endpoint} canChange={workspace.canChange} />
          </li>
        ))}
      </ul>
      <MoreButton query={list} />
      {adding ? <EndpointForm workspaceId={workspace.id} onClose={() => setAdding(false)} /> : null}
    </section>
  );
}
