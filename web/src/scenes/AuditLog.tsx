import { useAuditLog, type AuditEntry } from '../api/queries';
import { EmptyState, ListState, MoreButton } from '../common/ListState';
import { NotFoundState } from '../common/NotFoundState';
import { PageHeading } from '../common/PageHeading';
import { Time } from '../common/Time';
import { useCurrentWorkspace } from '../session';

const ACTIONS: Record<AuditEntry['action'], string> = {
  signed_in: 'signed in',
  'api_key.created': 'created an API key',
  'api_key.revoked': 'revoked an API key',
  'endpoint.added': 'added an endpoint',
  'endpoint.updated': 'changed an endpoint',
  'endpoint.removed': 'removed an endpoint',
  'endpoint.tested': 'sent a test',
  'endpoint.secret_rotated': 'rotated a signing secret',
  'endpoint.resumed': 'resumed an endpoint',
  'endpoint.paused': 'endpoint paused',
  'endpoint.notice_sent': "mailed an endpoint's health to owners and admins",
  'delivery.resent': 'resent a delivery',
  'delivery.resent_failed': 'resent failed deliveries',
  'member.added': 'added a member',
  'member.role_changed': "changed a member's role",
  'member.removed': 'removed a member',
  'invitation.created': 'invited someone',
  'invitation.revoked': 'revoked an invitation',
  'invitation.accepted': 'accepted an invitation',
};

/** Every management change and sign-in of the workspace: who, what, when, from where. */
export function AuditLog() {
  const workspace = useCurrentWorkspace();
  const list = useAuditLog(workspace?.id ?? '');
  if (!workspace) return <NotFoundState what="workspace" />;
  return (
    <section>
      <PageHeading title="Audit log" sub={<p className="hint">Changes and sign-ins of this workspace, newest first, from the console and the CLI.</p>} />
      <ListState query={list} what="the audit log" />
      {list.items && list.items.length === 0 ? (
        <EmptyState>
          <p>Nothing recorded yet.</p>
        </EmptyState>
      ) : null}
      {list.items && list.items.length > 0 ? (
        <div className="table-scroll">
          <table>
            <caption className="visually-hidden">Audit log, newest first</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
                <th scope="col">Details</th>
                <th scope="col">From</th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((entry) => (
                <tr key={entry.id}>
                  <td className="when">
                    <Time at={entry.at} seconds />
                  </td>
                  <td>
                    {entry.actor ? entry.actor.name || entry.actor.email : null}
                    <div className="hint">{entry.actor ? `${entry.actor.email}, ${entry.actor_label}` : entry.actor_label}</div>
                  </td>
                  <td>{ACTIONS[entry.action] ?? entry.action}</td>
                  <td>
                    <Details details={entry.details as Record<string, unknown>} target={entry.target} />
                  </td>
                  <td>{entry.ip ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <MoreButton query={list} />
    </section>
  );
}

function Details(props: { details: Record<string, unknown>; target: AuditEntry['target'] }) {
  const entries = Object.entries(props.details ?? {});
  if (entries.length === 0 && !props.target) return <>—</>;
  return (
    <ul className="details">
      {entries.map(([name, value]) => (
        <li key={name}>
          {name.replaceAll('_', ' ')}: <code>{detailText(value)}</code>
        </li>
      ))}
      {props.target && entries.length === 0 ? (
        <li>
          {props.target.type.replaceAll('_', ' ')} <code>{props.target.id.slice(0, 8)}</code>
        </li>
      ) : null}
    </ul>
  );
}

function detailText(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (Array.isArray(value)) return value.map(detailText).join(', ');
  return typeof value === 'string' ? value : JSON.stringify(value);
}
