import { useState } from 'react';
import { api, call } from '../api/client';
import { keys, type Endpoint } from '../api/queries';
import { ConfirmChangeDialog } from '../common/ConfirmChangeDialog';
import { Dialog } from '../common/Dialog';
import { SecretOnce } from '../common/SecretOnce';

/** "Rotate secret": confirm, then the new secret once; the old one stops at once. */
export function RotateSecretDialog(props: { workspaceId: string; endpoint: Endpoint; onClose: () => void }) {
  const [secret, setSecret] = useState<string | null>(null);
  if (secret) {
    return (
      <Dialog title="New signing secret" onClose={props.onClose} wide>
        <SecretOnce label="Signing secret" value={secret} what="signing secret" />
        <div className="actions">
          <button type="button" className="primary" onClick={props.onClose}>
            Done
          </button>
        </div>
      </Dialog>
    );
  }
  return (
    <ConfirmChangeDialog
      title="Rotate the signing secret?"
      confirmLabel="Rotate secret"
      change={async () =>
        (
          await call(
            api.POST('/workspaces/{workspaceId}/endpoints/{endpointId}/rotate-secret', {
              params: { path: { workspaceId: props.workspaceId, endpointId: props.endpoint.id } },
            }),
          )
        ).data.secret
      }
      onDone={setSecret}
      onClose={props.onClose}
    >
      <p>
        Webhooks to <code>{props.endpoint.url}</code> are signed with a new secret from now on, and the old secret stops
        working at once. Update your receiver right after.
      </p>
    </ConfirmChangeDialog>
  );
}

/** "Remove": confirm; the endpoint's waiting deliveries and events are dropped. */
export function RemoveEndpointDialog(props: { workspaceId: string; endpoint: Endpoint; onClose: () => void }) {
  return (
    // The list is refetched before the dialog closes: the card (and this dialog in it) goes away,
    // and focus moves to the heading instead of to the removed card's button.
    <ConfirmChangeDialog
      title="Remove this endpoint?"
      confirmLabel="Remove endpoint"
      change={() =>
        call(
          api.DELETE('/workspaces/{workspaceId}/endpoints/{endpointId}', {
            params: { path: { workspaceId: props.workspaceId, endpointId: props.endpoint.id } },
          }),
        )
      }
      refresh={[keys.endpoints(props.workspaceId)]}
      onClose={props.onClose}
    >
      <p>
        <code>{props.endpoint.url}</code> gets no more webhooks. Events waiting to be delivered to it are dropped and
        are not sent later. This cannot be undone.
      </p>
    </ConfirmChangeDialog>
  );
}
