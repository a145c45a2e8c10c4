import type { ReactNode } from 'react';
import { errorMessage } from '../api/client';
import { Dialog } from './Dialog';

/** "Are you sure?" for a change that cannot be undone, with the change's error shown in place. */
export function ConfirmDialog(props: {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  pending: boolean;
  error: unknown;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <Dialog title={props.title} onClose={props.onClose}>
      {props.children}
      {props.error ? (
        <p role="alert" className="error">
          {errorMessage(props.error)}
        </p>
      ) : null}
      <div className="actions">
        <button type="button" className="danger" disabled={props.pending} onClick={props.onConfirm}>
          {props.pending ? 'Working…' : props.confirmLabel}
        </button>
        <button type="button" onClick={props.onClose} autoFocus>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}
