import { useEffect, useRef, type ReactNode } from 'react';

/**
 * A modal native <dialog>: the browser traps focus, Escape closes it, the rest of the page is
 * inert. On close, focus goes back to what opened it, or to the page's heading when that is gone
 * (a revoked key's row, a removed endpoint), so keyboard users are never dropped at the top.
 */
export function Dialog(props: { title: string; onClose: () => void; children: ReactNode; wide?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null);
  const { onClose } = props;
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!dialog.open) dialog.showModal();
    return () => {
      if (dialog.open) dialog.close();
      const target = opener?.isConnected ? opener : document.querySelector<HTMLElement>('main h1');
      target?.focus();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      className={props.wide ? 'wide' : undefined}
      aria-labelledby="dialog-title"
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <h2 id="dialog-title">{props.title}</h2>
      {props.children}
    </dialog>
  );
}
