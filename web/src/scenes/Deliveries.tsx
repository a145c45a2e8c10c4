import { Link, useLocation, useSearch } from 'wouter';
import { useDeliveries, useEndpoint, type Delivery, type DeliveryFilters as Filters } from '../api/queries';
import { StatusBadge } from '../common/Badge';
import { EmptyState, ListState, MoreButton } from '../common/ListState';
import { NotFoundState } from '../common/NotFoundState';
import { PageHeading } from '../common/PageHeading';
import { relative, Time } from '../common/Time';
import { WAITING_REASONS } from '../common/waiting';
import { to } from '../routes';
import { useCurrentWorkspace } from '../session';
import { DeliveryFilters } from './DeliveryFilters';
import { ResendFailed } from './ResendFailed';

const FILTER_NAMES = ['status', 'event_type', 'endpoint_id', 'since', 'until', 'q'] as const;

/** console-api.yaml "Webhook endpoints": the delivery log, workspace-wide or of one endpoint. */
export function Deliveries() {
  const workspace = useCurrentWorkspace();
  const search = useSearch();
  const [, navigate] = useLocation();
  const params = new URLSearchParams(search);
  const filters: Filters = Object.fromEntries(FILTER_NAMES.flatMap((name) => (params.get(name) ? [[name, params.get(name)]] : [])));
  const list = useDeliveries(workspace?.id ?? '', filters);
  const endpoint = useEndpoint(workspace?.id ?? '', filters.endpoint_id);
  if (!workspace) return <NotFoundState what="workspace" />;

  const title = filters.endpoint_id ? 'Delivery log of one endpoint' : 'Delivery log';
  return (
    <section>
      <PageHeading
        title={title}
        sub={
          filters.endpoint_id ? (
            <p className="hint">
              {endpoint.data ? <code>{endpoint.data.url}</code> : null}{' '}
              <Link href={to.deliveries(workspace.id)}>Show every endpoint</Link>
            </p>
          ) : (
            <p className="hint">Every webhook of this workspace, newest first.</p>
          )
        }
      />
      <DeliveryFilters
        key={search}
        workspaceId={workspace.id}
        filters={filters}
        onApply={(next) => navigate(to.deliveries(workspace.id, { ...next }))}
      />
      {filters.endpoint_id && endpoint.data ? (
        <ResendFailed workspaceId={workspace.id} endpoint={endpoint.data} canChange={workspace.canChange} />
      ) : null}
      <ListState query={list} what="deliveries" />
      {list.items && list.items.length === 0 ? (
        <EmptyState>
          <p>
            {Object.keys(filters).length > 0
              ? 'No delivery matches these filters. Widen the time range or clear the filters.'
              : 'No deliveries yet. Add an endpoint and send a test, or wait for the next offer event.'}
          </p>
        </EmptyState>
      ) : null}
      {list.items && list.items.length > 0 ? <DeliveryTable workspaceId={workspace.id} deliveries={list.items} /> : null}
      <MoreButton query={list} />
    </section>
  );
}

function DeliveryTable(props: { workspaceId: string; deliveries: Delivery[] }) {
  const now = Date.now();
  return (
    <div className="table-scroll">
      <table className="deliveries">
        <caption className="visually-hidden">Deliveries, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Type</th>
            <th scope="col">Offer</th>
            <th scope="col">Endpoint</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last response</th>
            <th scope="col">Next attempt</th>
          </tr>
        </thead>
        <tbody>
          {props.deliveries.map((d) => (
            <tr key={d.id}>
              <td className="when">
                <Link href={to.delivery(props.workspaceId, d.id)} aria-label={`Delivery of ${d.type} at ${new Date(d.created_at).toLocaleString()}`}>
                  <Time at={d.created_at} seconds />
                </Link>
              </td>
              <td className="when">
                <code>{d.type}</code>
                {d.test ? <span className="hint"> (test)</span> : null}
              </td>
              <td>{d.offer_id ? <code title={d.offer_id}>{d.offer_id.slice(0, 8)}</code> : '—'}</td>
              <td className="url-cell" title={d.endpoint.url}>
                {d.endpoint.url}
              </td>
              <td>
                <StatusBadge status={d.status} />
              </td>
              <td>
                {d.attempt_count} of {d.max_attempts}
              </td>
              <td>{d.last_response_status ?? '—'}</td>
              <td>
                {d.next_attempt_at && (d.status === 'pending' || d.status === 'sending') ? (
                  <>
                    <Time at={d.next_attempt_at} seconds /> ({relative(d.next_attempt_at, now)})
                    {d.waiting_reason ? <div className="hint">{WAITING_REASONS[d.waiting_reason]}</div> : null}
                  </>
                ) : (
                  '—'
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
