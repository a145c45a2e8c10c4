import { DAY, HOUR, MINUTE, SECOND } from '../clock.js';

/**
 * Pauses before the next try after a temporary failure (4xx, connection lost, timeout), by the
 * number of tries so far; the last pause repeats. An SMTP outage of hours loses no mail: each
 * mail waits at most an hour past the server's return.
 */
export const MAIL_RETRY_PAUSES_MS: readonly number[] = [1 * MINUTE, 5 * MINUTE, 15 * MINUTE, 30 * MINUTE, 1 * HOUR];
/** Temporary failures for this long since the first try end the mail as refused. */
export const MAIL_RETRY_WINDOW_MS = 3 * DAY;
/** Mails one worker sends at once. */
export const MAIL_BATCH_SIZE = 4;
/** How long a claimed mail belongs to its worker; longer than one send may take. */
export const MAIL_LEASE_MS = 2 * MINUTE;
/** How often an idle mail loop looks for due mails (it also wakes on every enqueued mail). */
export const MAIL_POLL_INTERVAL_MS = 2 * SECOND;

/** When the mail is tried again after its `attempts`-th try failed for now, or null: give up. */
export function nextMailAttemptAt(input: { attempts: number; firstAttemptAt: Date; now: Date }): Date | null {
  const pause = MAIL_RETRY_PAUSES_MS[Math.min(input.attempts, MAIL_RETRY_PAUSES_MS.length) - 1]!;
  const next = input.now.getTime() + pause;
  if (next - input.firstAttemptAt.getTime() > MAIL_RETRY_WINDOW_MS) return null;
  return new Date(next);
}
