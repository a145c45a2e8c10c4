import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../api/client';
import { keys, type Endpoint } from '../api/queries';
import { ConfirmDialog } from '../common/ConfirmDialog';
import { Dialog } from '../common/Dialog';
import { SecretOnce } from '../common/SecretOnce';

/** "Rotate secret": confirm, then the new secret once; the old one stops at once. */
export function RotateSecretDialog(props: { workspaceId: string; endpoint: Endpoint; onClose: () => void }) {
  const rotate = useMutation({
    mutationFn: async () =>
      (
        await call(
          api.POST('/workspaces/{workspaceId}/endpoints/{endpointId}/rotate-secret', {
            params: { path: { workspaceId: props.workspaceId, endpointId: props.endpoint.id } },
          }),
        )
      ).data.secret,
  });
  if (rotate.data) {
    return (
      <Dialog title="New signing secret" onClose={props.onClose} wide>
        <SecretOnce label="Signing secret" value={rotate.data} what="signing secret" />
        <div className="actions">
          <button type="button" className="primary" onClick={props.onClose}>
            Done
          </button>
        </div>
      </Dialog>
    );
  }
  return (
    <ConfirmDialog
      title="Rotate the signing secret?"
      confirmLabel="Rotate secret"
      pending={rotate.isPending}
      error={rotate.error}
      onConfirm={() => rotate.mutate()}
      onClose={props.onClose}
    >
      <p>
        Webhooks to <code>{props.endpoint.url}</code> are signed with a new secret from now on, and the old secret stops
        working at once. Update your receiver right after.
      </p>
    </ConfirmDialog>
  );
}

/** "Remove": confirm; the endpoint's waiting deliveries and events are dropped. */
export function RemoveEndpointDialog(props: { workspaceId: string; endpoint: Endpoint; onClose: () => void }) {
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () =>
      call(
        api.DELETE('/workspaces/{workspaceId}/endpoints/{endpointId}', {
          params: { path: { workspaceId: props.workspaceId, endpointId: props.endpoint.id } },
        }),
      ),
    // The list first: the card (and this dialog in it) goes away, and focus moves to the heading
    // instead of to the removed card's button.
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: keys.endpoints(props.workspaceId) });
      props.onClose();
    },
  });
  return (
    <ConfirmDialog
      title="Remove this endpoint?"
      confirmLabel="Remove endpoint"
      pending={remove.isPending}
      error={remove.error}
      onConfirm={() => remove.mutate()}
      onClose={props.onClose}
    >
      <p>
        <code>{props.endpoint.url}</code> gets no more webhooks. Events waiting to be delivered to it are dropped and
        are not sent later. This cannot be undone.
      </p>
    </ConfirmDialog>
  );
}
