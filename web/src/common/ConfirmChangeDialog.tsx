import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ConfirmDialog } from './ConfirmDialog';

/**
 * A change the person confirms first (ConfirmDialog): "confirm" runs `change`; once it succeeded,
 * the queries of `refresh` are refetched, in order, and only then is the dialog done, so the page
 * behind already shows the change when focus returns to it. Done means `onDone` with the change's
 * result (a dialog that shows it next), or else closing. A refused change stays in the dialog.
 */
export function ConfirmChangeDialog<T>(props: {
  title: string;
  confirmLabel: string;
  children: ReactNode;
  change: () => Promise<T>;
  refresh?: QueryKey[];
  onDone?: (result: T) => void;
  onClose: () => void;
}) {
  const queryClient = useQueryClient();
  const mutation = useMutation({
    mutationFn: props.change,
    onSuccess: async (result) => {
      for (const queryKey of props.refresh ?? []) await queryClient.invalidateQueries({ queryKey });
      if (props.onDone) props.onDone(result);
      else props.onClose();
    },
  });
  return (
    <ConfirmDialog
      title={props.title}
      confirmLabel={props.confirmLabel}
      pending={mutation.isPending}
      error={mutation.error}
      onConfirm={() => mutation.mutate()}
      onClose={props.onClose}
    >
      {props.children}
    </ConfirmDialog>
  );
}
