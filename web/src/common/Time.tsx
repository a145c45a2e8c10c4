const formatter = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const precise = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** A timestamp in the reader's time zone; the exact UTC value on hover and for machines. */
export function Time(props: { at: string | null | undefined; empty?: string; seconds?: boolean }) {
  if (!props.at) return <>{props.empty ?? '—'}</>;
  const date = new Date(props.at);
  return (
    <time dateTime={props.at} title={props.at}>
      {(props.seconds ? precise : formatter).format(date)}
    </time>
  );
}

/** "in 3 min", "5 min ago": for times near now (next attempt due). */
export function relative(at: string, now = Date.now()): string {
  const seconds = Math.round((new Date(at).getTime() - now) / 1000);
  const abs = Math.abs(seconds);
  const text =
    abs < 60 ? `${abs} s` : abs < 3600 ? `${Math.round(abs / 60)} min` : abs < 86400 ? `${Math.round(abs / 3600)} h` : `${Math.round(abs / 86400)} d`;
  return seconds >= 0 ? `in ${text}` : `${text} ago`;
}

/** <input type="datetime-local"> value (local time) <-> ISO 8601 UTC. */
export function localInputToIso(value: string): string | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

export function isoToLocalInput(iso: string | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}
