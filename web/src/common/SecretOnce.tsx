import { useId } from 'react';
import { CopyButton } from './CopyButton';

/**
 * A secret or key value shown exactly once (Stripe's key dialog): the value, a copy button, and
 * the warning beside it. The value lives only in this component's props; it is never cached.
 */
export function SecretOnce(props: { label: string; value: string; what: string }) {
  const id = useId();
  return (
    <div className="secret">
      <label htmlFor={id}>{props.label}</label>
      <div className="secret-row">
        <input id={id} readOnly value={props.value} spellCheck={false} onFocus={(event) => event.currentTarget.select()} />
        <CopyButton value={props.value} fieldId={id} />
      </div>
      <p className="warning">Copy the {props.what} now and keep it safe: it will not be shown again.</p>
    </div>
  );
}
