/** A status word with its colour; the word itself carries the meaning (never colour alone). */
export function Badge(props: { tone: 'good' | 'bad' | 'wait' | 'muted'; children: string }) {
  return <span className={`badge ${props.tone}`}>{props.children}</span>;
}

const TONES: Record<string, 'good' | 'bad' | 'wait' | 'muted'> = {
  active: 'good',
  succeeded: 'good',
  paused: 'bad',
  failed: 'bad',
  revoked: 'muted',
  expired: 'muted',
  cancelled: 'muted',
  pending: 'wait',
  sending: 'wait',
};

export function StatusBadge(props: { status: string }) {
  return <Badge tone={TONES[props.status] ?? 'muted'}>{props.status}</Badge>;
}
