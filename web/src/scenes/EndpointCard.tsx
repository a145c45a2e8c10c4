import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'wouter';
import { api, call, errorMessage } from '../api/client';
import { keys, type Endpoint } from '../api/queries';
import { Badge } from '../common/Badge';
import { Sparkline } from '../common/Sparkline';
import { Time } from '../common/Time';
import { to } from '../routes';
import { EndpointForm } from './EndpointForm';
import { RemoveEndpointDialog, RotateSecretDialog } from './EndpointDialogs';

/** Why an endpoint is paused (openapi.yaml "Webhook delivery and retries"), completing "paused …". */
const PAUSE_REASONS: Record<string, string> = {
  failures: 'after 5 deliveries in a row failed finally',
  manual: 'by an operator',
};

/** One endpoint: address, events, state, health over 24 hours, and what can be done to it. */
export function EndpointCard(props: { workspaceId: string; endpoint: Endpoint; canChange: boolean }) {
  const { endpoint, workspaceId, canChange } = props;
  const queryClient = useQueryClient();
  const [dialog, setDialog] = useState<'edit' | 'rotate' | 'remove' | null>(null);
  const path = { workspaceId, endpointId: endpoint.id };
  const headingId = `endpoint-${endpoint.id}`;
  const refresh = () => queryClient.invalidateQueries({ queryKey: keys.endpoints(workspaceId) });

  const test = useMutation({
    mutationFn: async () => (await call(api.POST('/workspaces/{workspaceId}/endpoints/{endpointId}/test', { params: { path } }))).data,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.deliveries(workspaceId) }),
  });
  const resume = useMutation({
    mutationFn: () => call(api.POST('/workspaces/{workspaceId}/endpoints/{endpointId}/resume', { params: { path } })),
    onSuccess: refresh,
  });

  const { stats } = endpoint;
  const attempts = `${stats.attempts_24h} ${stats.attempts_24h === 1 ? 'attempt' : 'attempts'}`;
  const summary =
    stats.success_rate_24h === null ? 'No attempts' : `${Math.round(stats.success_rate_24h * 1000) / 10}% succeeded, ${attempts}`;

  return (
    <article className="card endpoint" aria-labelledby={headingId}>
      <header>
        <h2 id={headingId} className="url">
          {endpoint.url}
        </h2>
        {endpoint.state === 'active' ? (
          <Badge tone="good">active</Badge>
        ) : (
          <span>
            <Badge tone="bad">paused</Badge>{' '}
            <span className="hint">
              {PAUSE_REASONS[endpoint.paused_reason ?? ''] ?? ''}, since <Time at={endpoint.paused_at} />. Events
              of the pause are never delivered; resume it to receive new ones.
            </span>
          </span>
        )}
      </header>
      {endpoint.failing_since && endpoint.state === 'active' ? (
        <p className="failing-since" role="status">
          Failing since <Time at={endpoint.failing_since} />
          {endpoint.health === 'failures_3'
            ? `: ${endpoint.failure_streak} deliveries in a row failed finally; at ${endpoint.failure_streak_limit} the endpoint is paused.`
            : ': no attempt has succeeded since. Owners and admins were told by mail.'}
        </p>
      ) : null}
      <dl className="facts">
        <div>
          <dt>Events</dt>
          <dd>
            <ul className="tags">
              {endpoint.events.map((e) => (
                <li key={e}>
                  <code>{e}</code>
                </li>
              ))}
            </ul>
          </dd>
        </div>
        <div>
          <dt>Failures in a row</dt>
          <dd className={endpoint.failure_streak > 0 ? 'warn' : undefined}>
            {endpoint.failure_streak} of {endpoint.failure_streak_limit} before pause
          </dd>
        </div>
        <div>
          <dt>Last 24 hours</dt>
          <dd className="stats">
            <span>
              {summary}
            </span>
            <Sparkline hourly={stats.hourly} />
          </dd>
        </div>
      </dl>
      <div className="actions">
        <Link href={to.deliveries(workspaceId, { endpoint_id: endpoint.id })}>Delivery log</Link>
        <button type="button" disabled={!canChange || test.isPending} onClick={() => test.mutate()}>
          {test.isPending ? 'Sending…' : 'Send test'}
        </button>
        <button type="button" disabled={!canChange} onClick={() => setDialog('edit')}>
          Edit
        </button>
        <button type="button" disabled={!canChange} onClick={() => setDialog('rotate')}>
          Rotate secret
        </button>
        {endpoint.state === 'paused' ? (
          <button type="button" disabled={!canChange || resume.isPending} onClick={() => resume.mutate()}>
            Resume
          </button>
        ) : null}
        <button type="button" className="danger" disabled={!canChange} onClick={() => setDialog('remove')}>
          Remove
        </button>
      </div>
      <div role="status" className="outcome">
        {test.isSuccess ? (
          <p>
            Test webhook queued (webhook-id <code>{test.data.webhook_id}</code>).{' '}
            <Link href={to.delivery(workspaceId, test.data.delivery_id)}>See its delivery</Link>
          </p>
        ) : null}
        {resume.isSuccess ? <p>Resumed: new events are delivered again. Failed deliveries can be resent from its delivery log.</p> : null}
      </div>
      {test.isError || resume.isError ? (
        <p role="alert" className="error">
          {errorMessage(test.error ?? resume.error)}
        </p>
      ) : null}
      {dialog === 'edit' ? <EndpointForm workspaceId={workspaceId} endpoint={endpoint} onClose={() => setDialog(null)} /> : null}
      {dialog === 'rotate' ? <RotateSecretDialog workspaceId={workspaceId} endpoint={endpoint} onClose={() => setDialog(null)} /> : null}
      {dialog === 'remove' ? <RemoveEndpointDialog workspaceId={workspaceId} endpoint={endpoint} onClose={() => setDialog(null)} /> : null}
    </article>
  );
}
