import { useState, type FormEvent } from 'react';
import { useEndpoints, useEventTypes, type DeliveryFilters as Filters } from '../api/queries';
import { isoToLocalInput, localInputToIso } from '../common/Time';

const STATUSES = ['pending', 'sending', 'succeeded', 'failed', 'cancelled'] as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The delivery log's filters; applying them changes the address, so a filtered view can be shared. */
export function DeliveryFilters(props: { workspaceId: string; filters: Filters; onApply: (filters: Filters) => void }) {
  const { filters } = props;
  const eventTypes = useEventTypes();
  const endpoints = useEndpoints(props.workspaceId);
  const [status, setStatus] = useState<string>(filters.status ?? '');
  const [eventType, setEventType] = useState(filters.event_type ?? '');
  const [endpointId, setEndpointId] = useState(filters.endpoint_id ?? '');
  const [since, setSince] = useState(isoToLocalInput(filters.since));
  const [until, setUntil] = useState(isoToLocalInput(filters.until));
  const [q, setQ] = useState(filters.q ?? '');
  const [problem, setProblem] = useState<string | null>(null);

  function submit(event: FormEvent) {
    event.preventDefault();
    const search = q.trim();
    if (search && !UUID.test(search)) {
      setProblem('Enter a whole webhook-id or offer id: 36 characters like 3f2b8c1e-0a4d-4e5f-9b6a-7c8d9e0f1a2b.');
      return;
    }
    setProblem(null);
    props.onApply({
      status: (status || undefined) as Filters['status'],
      event_type: eventType || undefined,
      endpoint_id: endpointId || undefined,
      since: localInputToIso(since),
      until: localInputToIso(until),
      q: search || undefined,
    });
  }

  function clear() {
    setStatus('');
    setEventType('');
    setEndpointId('');
    setSince('');
    setUntil('');
    setQ('');
    setProblem(null);
    props.onApply({});
  }

  return (
    <form className="filters" onSubmit={submit} aria-label="Filter deliveries">
      <div>
        <label htmlFor="f-status">Status</label>
        <select id="f-status" value={status} onChange={(e) => setStatus(e.target.value)}>
          <option value="">Any</option>
          {STATUSES.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor="f-type">Event type</label>
        <select id="f-type" value={eventType} onChange={(e) => setEventType(e.target.value)}>
          <option value="">Any</option>
          {eventTypes.data?.map((t) => (
            <option key={t.type}>{t.type}</option>
          ))}
          <option>ping</option>
        </select>
      </div>
      <div>
        <label htmlFor="f-endpoint">Endpoint</label>
        <select id="f-endpoint" value={endpointId} onChange={(e) => setEndpointId(e.target.value)}>
          <option value="">Any</option>
          {endpoints.items?.map((e) => (
            <option key={e.id} value={e.id}>
              {e.url}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor="f-since">From</label>
        <input id="f-since" type="datetime-local" value={since} onChange={(e) => setSince(e.target.value)} />
      </div>
      <div>
        <label htmlFor="f-until">To</label>
        <input id="f-until" type="datetime-local" value={until} onChange={(e) => setUntil(e.target.value)} />
      </div>
      <div className="grow">
        <label htmlFor="f-q">Webhook-id or offer id</label>
        <input
          id="f-q"
          type="search"
          value={q}
          spellCheck={false}
          onChange={(e) => setQ(e.target.value)}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? 'f-q-error' : undefined}
        />
      </div>
      <div className="filter-actions">
        <button type="submit" className="primary">
          Apply filters
        </button>
        <button type="button" onClick={clear}>
          Clear
        </button>
      </div>
      {problem ? (
        <p id="f-q-error" role="alert" className="error field-error">
          {problem}
        </p>
      ) : null}
    </form>
  );
}
