import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, call, errorMessage } from '../api/client';
import { keys, type Endpoint } from '../api/queries';
import { isoToLocalInput, localInputToIso } from '../common/Time';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * "Resend failed since ...": for an endpoint that was down, first how many failed deliveries it
 * would resend, then the resends (each within its own limit of 5, console-api.yaml "Limits").
 */
export function ResendFailed(props: { workspaceId: string; endpoint: Endpoint; canChange: boolean }) {
  const queryClient = useQueryClient();
  const [since, setSince] = useState(isoToLocalInput(new Date(Date.now() - DAY_MS).toISOString()));
  const path = { workspaceId: props.workspaceId, endpointId: props.endpoint.id };
  const sinceIso = localInputToIso(since);

  const preview = useMutation({
    mutationFn: async (at: string) =>
      (await call(api.GET('/workspaces/{workspaceId}/endpoints/{endpointId}/failed-deliveries', { params: { path, query: { since: at } } }))).data,
  });
  const resend = useMutation({
    mutationFn: async (at: string) =>
      (await call(api.POST('/workspaces/{workspaceId}/endpoints/{endpointId}/resend-failed', { params: { path }, body: { since: at } }))).data,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.deliveries(props.workspaceId) }),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!sinceIso) return;
    resend.reset();
    preview.mutate(sinceIso);
  }

  const previewed = preview.data && preview.variables === sinceIso ? preview.data : undefined;
  return (
    <form className="card resend-failed" onSubmit={submit} aria-labelledby="resend-failed-title">
      <h2 id="resend-failed-title">Resend failed deliveries</h2>
      <div className="row">
        <label htmlFor="resend-since">Resend failed since</label>
        <input
          id="resend-since"
          type="datetime-local"
          required
          value={since}
          onChange={(e) => setSince(e.target.value)}
        />
        <button type="submit" disabled={!props.canChange || preview.isPending}>
          {preview.isPending ? 'Counting…' : 'Preview'}
        </button>
        {previewed && previewed.count > 0 && !resend.isSuccess ? (
          <button type="button" className="primary" disabled={!props.canChange || resend.isPending} onClick={() => resend.mutate(previewed.since)}>
            {resend.isPending ? 'Resending…' : `Resend ${previewed.count} failed`}
          </button>
        ) : null}
      </div>
      <div role="status">
        {previewed && !resend.isSuccess ? (
          <p>
            {previewed.count === 0
              ? 'No failed deliveries to this endpoint since then.'
              : `${previewed.count} failed ${previewed.count === 1 ? 'delivery' : 'deliveries'} since then will be sent again.`}
          </p>
        ) : null}
        {resend.data ? (
          <p>
            Resent {resend.data.resent}.
            {resend.data.skipped_limit > 0 ? ` ${resend.data.skipped_limit} skipped: they were resent 5 times already.` : ''}
          </p>
        ) : null}
      </div>
      {preview.isError || resend.isError ? (
        <p role="alert" className="error">
          {errorMessage(preview.error ?? resend.error)}
        </p>
      ) : null}
    </form>
  );
}
