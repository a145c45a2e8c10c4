import type { MailKind } from '../../mail/outbox.js';
import { FAILURES_IN_A_ROW_TO_PAUSE, HEALTH_FAILING_AFTER_MS, HEALTH_FAILING_MIN_FAILURES, HEALTH_NOTICE_AT_STREAK } from './policy.js';

/**
 * An endpoint's health as told to its workspace's owners and admins, in rising order. The
 * tracker below only decides; its callers (notices.ts) store the change and write the mails in
 * the same transaction (STYLE.md: alerting is a pure tracker whose caller acts). A state is told
 * once when it is entered, and only a rise or a recovery is a change, so however many deliveries
 * fail there are at most four mails per endpoint until it recovers.
 */
export const HEALTH_STATES = ['healthy', 'failing', 'failures_3', 'paused'] as const;
export type HealthState = (typeof HEALTH_STATES)[number];

export type HealthNotice = Extract<MailKind, 'endpoint_failing' | 'endpoint_failures_3' | 'endpoint_paused' | 'endpoint_recovered'>;

const NOTICE_OF: Record<Exclude<HealthState, 'healthy'>, HealthNotice> = {
  failing: 'endpoint_failing',
  failures_3: 'endpoint_failures_3',
  paused: 'endpoint_paused',
};

/** What happened to the endpoint, as its callers see it. */
export type HealthSignal =
  /**
   * The health job's look at the delivery log (attempts since the last success). Test pings are
   * not in it: a test tells the person who sent it how the receiver answers and changes nothing
   * of the endpoint's health (readHealthFacts.ts).
   */
  | {
      kind: 'attempts';
      now: Date;
      /** Not paused: only an active endpoint delivers, so only an active one can recover. */
      active: boolean;
      lastSuccessAt: Date | null;
      /** First failed attempt after the last success, and how many failed since it. */
      firstFailureAt: Date | null;
      failuresSinceSuccess: number;
    }
  /** A delivery failed finally; `streak` counts them in a row (openapi.yaml "Webhook delivery and retries"). */
  | { kind: 'final-failure'; streak: number }
  /** The engine paused the endpoint after FAILURES_IN_A_ROW_TO_PAUSE final failures. */
  | { kind: 'paused' };

export interface HealthChange {
  to: HealthState;
  notice: HealthNotice;
}

/**
 * The notices a change takes back if they are not sent yet: "close to pause" warns of a pause,
 * so once the pause itself is told (a burst of final failures reaching the 3rd and the 5th in
 * one round) the warning adds nothing and only "paused" is mailed. Every other notice stays and
 * is sent before the later ones of its endpoint (src/mail/sql/claimDueMails.ts).
 */
export function supersededBy(notice: HealthNotice): HealthNotice[] {
  return notice === 'endpoint_paused' ? ['endpoint_failures_3'] : [];
}

const level = (state: HealthState) => HEALTH_STATES.indexOf(state);

/** The change `signal` makes to an endpoint in `current` (failing since `failingSince`), or null. */
export function trackHealth(current: { state: HealthState; failingSince: Date | null }, signal: HealthSignal): HealthChange | null {
  const rise = (to: Exclude<HealthState, 'healthy'>): HealthChange | null =>
    level(to) > level(current.state) ? { to, notice: NOTICE_OF[to] } : null;
  switch (signal.kind) {
    case 'paused':
      return rise('paused');
    case 'final-failure':
      return signal.streak >= HEALTH_NOTICE_AT_STREAK && signal.streak < FAILURES_IN_A_ROW_TO_PAUSE ? rise('failures_3') : null;
    case 'attempts': {
      if (current.state !== 'healthy') {
        // Recovered: a delivery succeeded on an active endpoint after its failures began. A paused
        // endpoint stays as it is until it is resumed (markEndpointActive.ts steps it back to
        // 'failing'), so the success after the resume is the one told.
        const since = current.failingSince;
        const recovered = signal.active && signal.lastSuccessAt !== null && since !== null && signal.lastSuccessAt > since;
        return recovered ? { to: 'healthy', notice: 'endpoint_recovered' } : null;
      }
      const hourAgo = signal.now.getTime() - HEALTH_FAILING_AFTER_MS;
      const failing =
        signal.active &&
        signal.firstFailureAt !== null &&
        signal.firstFailureAt.getTime() <= hourAgo &&
        (signal.lastSuccessAt === null || signal.lastSuccessAt.getTime() <= hourAgo) &&
        signal.failuresSinceSuccess >= HEALTH_FAILING_MIN_FAILURES;
      return failing ? rise('failing') : null;
    }
  }
}
