import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, call, ApiError, errorMessage } from '../api/client';
import { keys } from '../api/queries';
import { Dialog } from '../common/Dialog';
import { SecretOnce } from '../common/SecretOnce';
import { localInputToIso } from '../common/Time';

/** "Create key": name and optional expiry, then the value exactly once with its warning. */
export function CreateKeyDialog(props: { workspaceId: string; onClose: () => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [expires, setExpires] = useState('');
  const create = useMutation({
    mutationFn: async () =>
      (
        await call(
          api.POST('/workspaces/{workspaceId}/api-keys', {
            params: { path: { workspaceId: props.workspaceId } },
            body: { name: name.trim(), ...(expires ? { expires_at: localInputToIso(expires) ?? null } : {}) },
          }),
        )
      ).data,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.apiKeys(props.workspaceId) }),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate();
  }

  if (create.data) {
    return (
      <Dialog title="Your new API key" onClose={props.onClose} wide>
        <SecretOnce label="New API key" value={create.data.value} what="key" />
        <p>
          Send it as <code>Authorization: Bearer …</code> to <code>/api/v1</code>.
        </p>
        <div className="actions">
          <button type="button" className="primary" onClick={props.onClose}>
            Done
          </button>
        </div>
      </Dialog>
    );
  }

  const fieldError = create.error instanceof ApiError ? create.error.param : undefined;
  return (
    <Dialog title="Create key" onClose={props.onClose}>
      <form onSubmit={submit}>
        <label htmlFor="key-name">Name</label>
        <input
          id="key-name"
          required
          maxLength={100}
          value={name}
          onChange={(e) => setName(e.target.value)}
          aria-invalid={fieldError === 'name' || undefined}
          aria-describedby={fieldError === 'name' ? 'key-error' : 'key-name-hint'}
          autoFocus
        />
        <p id="key-name-hint" className="hint">
          Say where it is used, e.g. "CRM sync".
        </p>
        <label htmlFor="key-expires">
          Expires at <span className="optional">(optional)</span>
        </label>
        <input
          id="key-expires"
          type="datetime-local"
          value={expires}
          onChange={(e) => setExpires(e.target.value)}
          aria-invalid={fieldError === 'expires_at' || undefined}
          aria-describedby={fieldError === 'expires_at' ? 'key-error' : undefined}
        />
        {create.isError ? (
          <p id="key-error" role="alert" className="error">
            {errorMessage(create.error)}
          </p>
        ) : null}
        <div className="actions">
          <button type="submit" className="primary" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create key'}
          </button>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
