import { useState } from 'react';

/**
 * Copies a value. navigator.clipboard exists only in secure contexts (https or localhost); on a
 * plain-http address the text of the field is selected instead, so Ctrl+C still works.
 */
export function CopyButton(props: { value: string; label?: string; fieldId?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'select'>('idle');
  async function copy() {
    try {
      if (!navigator.clipboard) throw new Error('no clipboard');
      await navigator.clipboard.writeText(props.value);
      setState('copied');
    } catch {
      const field = props.fieldId ? document.getElementById(props.fieldId) : null;
      if (field instanceof HTMLInputElement) field.select();
      setState('select');
    }
  }
  return (
    <>
      <button type="button" onClick={copy}>
        {props.label ?? 'Copy'}
      </button>
      <span role="status" className="hint">
        {state === 'copied' ? 'Copied.' : state === 'select' ? 'Selected: press Ctrl+C (⌘C) to copy.' : ''}
      </span>
    </>
  );
}
