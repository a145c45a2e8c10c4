import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'wouter';
import { api, call, errorMessage, ApiError } from '../api/client';
import { keys, useDelivery, type DeliveryDetail } from '../api/queries';
import { StatusBadge } from '../common/Badge';
import { ListState } from '../common/ListState';
import { NotFoundState } from '../common/NotFoundState';
import { PageHeading } from '../common/PageHeading';
import { relative, Time } from '../common/Time';
import { WAITING_REASONS } from '../common/waiting';
import { to } from '../routes';
import { useCurrentWorkspace } from '../session';
import { AttemptsTable } from './AttemptsTable';

/** One delivery: the exact body and headers sent, every attempt, and "Resend" (up to 5 times). */
export function Delivery() {
  const workspace = useCurrentWorkspace();
  const { deliveryId } = useParams<{ deliveryId: string }>();
  const delivery = useDelivery(workspace?.id ?? '', deliveryId);
  if (!workspace) return <NotFoundState what="workspace" />;
  if (delivery.error instanceof ApiError && delivery.error.status === 404) return <NotFoundState what="delivery" />;
  return (
    <section>
      <p className="crumbs">
        <Link href={to.deliveries(workspace.id)}>Delivery log</Link> ›
      </p>
      <ListState query={delivery} what="the delivery" />
      {delivery.data ? <DeliveryView workspaceId={workspace.id} delivery={delivery.data} canChange={workspace.canChange} /> : null}
    </section>
  );
}

function DeliveryView(props: { workspaceId: string; delivery: DeliveryDetail; canChange: boolean }) {
  const { delivery: d, workspaceId } = props;
  const queryClient = useQueryClient();
  const resend = useMutation({
    mutationFn: () =>
      call(api.POST('/workspaces/{workspaceId}/deliveries/{deliveryId}/resend', { params: { path: { workspaceId, deliveryId: d.id } } })),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: keys.delivery(workspaceId, d.id) });
      await queryClient.invalidateQueries({ queryKey: keys.deliveries(workspaceId) });
    },
  });
  const limitReached = d.resend_count >= d.resend_limit;
  const waiting = d.status === 'pending' || d.status === 'sending';

  return (
    <>
      <PageHeading title={`Delivery of ${d.type}${d.test ? ' (test)' : ''}`}>
        <span className="resend-count">
          Resends: {d.resend_count} of {d.resend_limit}
        </span>
        <button type="button" className="primary" disabled={!props.canChange || limitReached || waiting || resend.isPending} onClick={() => resend.mutate()}>
          {resend.isPending ? 'Resending…' : 'Resend'}
        </button>
      </PageHeading>
      {limitReached ? <p className="hint">This delivery was resent {d.resend_limit} times, the most allowed.</p> : null}
      {waiting ? <p className="hint">It can be resent once it has succeeded or failed.</p> : null}
      <div role="status">{resend.isSuccess ? <p>Resent: one new attempt is due now.</p> : null}</div>
      {resend.isError ? (
        <p role="alert" className="error">
          {errorMessage(resend.error)}
        </p>
      ) : null}
      <dl className="facts grid">
        <div>
          <dt>Status</dt>
          <dd>
            <StatusBadge status={d.status} />
            {d.failure_reason ? <span className="hint"> {d.failure_reason}</span> : null}
          </dd>
        </div>
        <div>
          <dt>Webhook-id</dt>
          <dd>
            <code>{d.webhook_id}</code>
          </dd>
        </div>
        <div>
          <dt>Offer</dt>
          <dd>
            {d.offer_id ? (
              <Link href={to.deliveries(workspaceId, { q: d.offer_id })} title="Every delivery of this offer">
                <code>{d.offer_id}</code>
              </Link>
            ) : (
              '—'
            )}
          </dd>
        </div>
        <div>
          <dt>Endpoint</dt>
          <dd>
            <Link href={to.deliveries(workspaceId, { endpoint_id: d.endpoint.id })}>{d.endpoint.url}</Link>
          </dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            <Time at={d.created_at} seconds />
          </dd>
        </div>
        <div>
          <dt>Attempts</dt>
          <dd>
            {d.attempt_count} of {d.max_attempts}
          </dd>
        </div>
        <div>
          <dt>Last response</dt>
          <dd>{d.last_response_status ?? '—'}</dd>
        </div>
        <div>
          <dt>Next attempt</dt>
          <dd>
            {d.next_attempt_at && waiting ? (
              <>
                <Time at={d.next_attempt_at} seconds /> ({relative(d.next_attempt_at)})
                {d.waiting_reason ? `: ${WAITING_REASONS[d.waiting_reason]}` : ''}
              </>
            ) : (
              '—'
            )}
          </dd>
        </div>
      </dl>
      <h2>Attempts</h2>
      <AttemptsTable attempts={d.attempts} />
      <h2>Headers sent</h2>
      {Object.keys(d.headers).length === 0 ? (
        <p className="empty">Nothing sent yet.</p>
      ) : (
        <table className="headers">
          <caption className="visually-hidden">Headers sent on the last attempt</caption>
          <tbody>
            {Object.entries(d.headers).map(([name, value]) => (
              <tr key={name}>
                <th scope="row">
                  <code>{name}</code>
                </th>
                <td>
                  <code className="wrap">{value}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Body sent</h2>
      <pre className="body" aria-label="Body sent" tabIndex={0}>
        {d.body}
      </pre>
    </>
  );
}
