import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, call, ApiError, errorMessage, type Schemas } from '../api/client';
import { keys, useEventTypes, type Endpoint } from '../api/queries';
import { Dialog } from '../common/Dialog';
import { ListState } from '../common/ListState';
import { SecretOnce } from '../common/SecretOnce';

type EventName = Schemas['SubscribableEventType'];

/**
 * "Add endpoint" and "Edit endpoint": the URL (checked by the server's address rules, whose
 * reason is shown at the field) and one checkbox per event type with its description from the
 * webhooks section of openapi.yaml. A new endpoint's secret is shown once.
 */
export function EndpointForm(props: { workspaceId: string; endpoint?: Endpoint; onClose: () => void }) {
  const queryClient = useQueryClient();
  const eventTypes = useEventTypes();
  const editing = props.endpoint;
  const [url, setUrl] = useState(editing?.url ?? 'https://');
  const [events, setEvents] = useState<Set<string>>(new Set(editing?.events ?? []));

  const save = useMutation({
    mutationFn: async () => {
      const chosen = [...events] as EventName[];
      if (editing) {
        const path = { workspaceId: props.workspaceId, endpointId: editing.id };
        await call(api.PATCH('/workspaces/{workspaceId}/endpoints/{endpointId}', { params: { path }, body: { url: url.trim(), events: chosen } }));
        return undefined;
      }
      const created = await call(
        api.POST('/workspaces/{workspaceId}/endpoints', { params: { path: { workspaceId: props.workspaceId } }, body: { url: url.trim(), events: chosen } }),
      );
      return created.data.secret;
    },
    onSuccess: async (secret) => {
      await queryClient.invalidateQueries({ queryKey: keys.endpoints(props.workspaceId) });
      if (secret === undefined) props.onClose();
    },
  });

  function toggle(type: string, on: boolean) {
    const next = new Set(events);
    if (on) next.add(type);
    else next.delete(type);
    setEvents(next);
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate();
  }

  if (save.data) {
    return (
      <Dialog title="Endpoint added" onClose={props.onClose} wide>
        <p>
          Verify every webhook to <code>{url.trim()}</code> with this signing secret (Standard Webhooks).
        </p>
        <SecretOnce label="Signing secret" value={save.data} what="signing secret" />
        <div className="actions">
          <button type="button" className="primary" onClick={props.onClose}>
            Done
          </button>
        </div>
      </Dialog>
    );
  }

  const param = save.error instanceof ApiError ? save.error.param : undefined;
  const urlError = save.isError && param === 'url';
  const eventsError = save.isError && param === 'events';
  const otherError = save.isError && !urlError && !eventsError;
  return (
    <Dialog title={editing ? 'Edit endpoint' : 'Add endpoint'} onClose={props.onClose} wide>
      <form onSubmit={submit}>
        <label htmlFor="endpoint-url">URL</label>
        <input
          id="endpoint-url"
          type="url"
          required
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          aria-invalid={urlError || undefined}
          aria-describedby={urlError ? 'endpoint-url-error' : 'endpoint-url-hint'}
          autoFocus
        />
        {urlError ? (
          <p id="endpoint-url-error" role="alert" className="error field-error">
            {errorMessage(save.error)}
          </p>
        ) : (
          <p id="endpoint-url-hint" className="hint">
            An https address on a public host name, port 443 (the default).
          </p>
        )}
        <fieldset aria-invalid={eventsError || undefined} aria-describedby={eventsError ? 'endpoint-events-error' : undefined}>
          <legend>Events</legend>
          <ListState query={eventTypes} what="event types" />
          {eventTypes.data?.map((t) => {
            const id = `event-${t.type.replaceAll('.', '-')}`;
            return (
            <div className="check" key={t.type}>
              <input
                type="checkbox"
                id={id}
                checked={events.has(t.type)}
                onChange={(e) => toggle(t.type, e.target.checked)}
                aria-describedby={`${id}-description`}
              />
              <label htmlFor={id}>
                <code>{t.type}</code>
              </label>
              <span id={`${id}-description`} className="hint">
                {t.description}
              </span>
            </div>
            );
          })}
          {eventsError ? (
            <p id="endpoint-events-error" role="alert" className="error field-error">
              {errorMessage(save.error)}
            </p>
          ) : null}
        </fieldset>
        {otherError ? (
          <p role="alert" className="error">
            {errorMessage(save.error)}
          </p>
        ) : null}
        <div className="actions">
          <button type="submit" className="primary" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : editing ? 'Save changes' : 'Add endpoint'}
          </button>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
