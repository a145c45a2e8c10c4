import type { DeliveryDetail } from '../api/queries';
import { Time } from '../common/Time';

/** Every attempt of a delivery: when, status or error, how long, and the start of the reply. */
export function AttemptsTable(props: { attempts: DeliveryDetail['attempts'] }) {
  if (props.attempts.length === 0) return <p className="empty">No attempt yet.</p>;
  return (
    <table className="attempts">
      <caption className="visually-hidden">Attempts, first to last</caption>
      <thead>
        <tr>
          <th scope="col">#</th>
          <th scope="col">Time</th>
          <th scope="col">Result</th>
          <th scope="col">Duration</th>
          <th scope="col">Start of the reply</th>
        </tr>
      </thead>
      <tbody>
        {props.attempts.map((a) => (
          <tr key={a.attempt}>
            <td>{a.attempt}</td>
            <td>
              <Time at={a.attempted_at} seconds />
            </td>
            <td>{a.status_code !== null ? `HTTP ${a.status_code}` : (a.error ?? '—')}</td>
            <td>{a.duration_ms} ms</td>
            <td>{a.response_prefix ? <code className="wrap">{a.response_prefix}</code> : '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
