import { ENGINE_SOURCE, writeAudit } from '../../domain/audit.js';
import type { Queryable, Sql } from '../../db/connect.js';
import { enqueueMail } from '../../mail/outbox.js';
import { changeHealth } from '../sql/changeHealth.js';
import { readHealthFacts, type HealthFacts } from '../sql/readHealthFacts.js';
import { readNoticeContext } from '../sql/readNoticeContext.js';
import { supersedeNotices } from '../sql/supersedeNotices.js';
import { supersededBy, trackHealth, type HealthSignal } from './health.js';
import { noticeMail } from './notice-mail.js';
import { HEALTH_FAILING_AFTER_MS, HEALTH_NOTICE_LAST_ERRORS } from './policy.js';

/** The address links in notices start with when the engine was given none (the embedded default's). */
export const DEFAULT_NOTICE_PUBLIC_URL = 'http://localhost:8080';

export interface NoticeDeps {
  publicUrl?: string;
}

/**
 * Acts on the health tracker's decision for one endpoint, inside `tx` (the transaction of the
 * cause: a final failure, a pause, or the health job's look): stores the new state, takes back
 * the lower warnings of the endpoint not yet sent (health.ts supersededBy), writes one mail per
 * owner or admin who wants notices into the mail outbox, and records the notice in the audit log
 * (with how many mails it took back). Nothing happens when the tracker sees no change or another worker made it first.
 */
export async function actOnHealth(
  tx: Queryable,
  deps: NoticeDeps,
  input: { facts: HealthFacts; signal: HealthSignal; now: Date; cancelled?: number },
): Promise<boolean> {
  const { facts, now } = input;
  const change = trackHealth({ state: facts.health_state, failingSince: facts.failing_since }, input.signal);
  if (!change) return false;
  const failingSince = facts.failing_since ?? facts.first_failure_at ?? now;
  if (!(await changeHealth(tx, { endpointId: facts.id, from: facts.health_state, to: change.to, failingSince, now }))) return false;
  const context = await readNoticeContext(tx, { endpointId: facts.id, lastErrors: HEALTH_NOTICE_LAST_ERRORS });
  if (!context) return false;
  // changeHealth holds the endpoint's row until commit, so no other notice of it is written between.
  const superseded = await supersedeNotices(tx, { endpointId: facts.id, kinds: supersededBy(change.notice), now });
  const mailFacts = {
    notice: change.notice,
    workspaceId: facts.workspace_id,
    workspaceName: context.workspace_name,
    endpointId: facts.id,
    url: context.url,
    failingSince,
    lastErrors: context.last_errors,
    cancelled: input.cancelled,
    recoveredAt: facts.last_success_at,
    publicUrl: deps.publicUrl ?? DEFAULT_NOTICE_PUBLIC_URL,
  };
  for (const to of context.recipients) await enqueueMail(tx, noticeMail(mailFacts, to));
  await writeAudit(tx, {
    workspaceId: facts.workspace_id,
    actorId: null,
    via: ENGINE_SOURCE,
    action: 'endpoint.notice_sent',
    target: { type: 'endpoint', id: facts.id },
    details: { notice: change.notice, health: change.to, recipients: context.recipients.length, ...(superseded > 0 ? { superseded } : {}) },
    at: now,
  });
  return true;
}

/** The facts of one endpoint, for the final-failure transaction (final-failure.ts). */
export async function readEndpointHealth(tx: Queryable, endpointId: string, now: Date): Promise<HealthFacts | null> {
  const [facts] = await readHealthFacts(tx, { endpointId, failedSince: new Date(now.getTime() - HEALTH_FAILING_AFTER_MS) });
  return facts ?? null;
}

/**
 * The health job: each endpoint that may be starting to fail or recovering, looked at and acted
 * on in its own transaction. Returns the number of notices written.
 */
export async function checkEndpointHealth(deps: NoticeDeps & { sql: Sql; now: Date }): Promise<number> {
  const candidates = await readHealthFacts(deps.sql, { failedSince: new Date(deps.now.getTime() - HEALTH_FAILING_AFTER_MS) });
  let notices = 0;
  for (const facts of candidates) {
    const signal: HealthSignal = {
      kind: 'attempts',
      now: deps.now,
      active: facts.state === 'active',
      lastSuccessAt: facts.last_success_at,
      firstFailureAt: facts.first_failure_at,
      failuresSinceSuccess: facts.failures,
    };
    if (!trackHealth({ state: facts.health_state, failingSince: facts.failing_since }, signal)) continue;
    const acted = await deps.sql.begin((tx) => actOnHealth(tx, deps, { facts, signal, now: deps.now }));
    if (acted) notices += 1;
  }
  return notices;
}

/**
 * A final failure counted toward the pause, in its transaction (final-failure.ts): the 3rd in a row
 * and the pause are told; `cancelled` is what the pause cancelled.
 */
export async function noticeFinalFailure(
  tx: Queryable,
  deps: NoticeDeps,
  input: { endpointId: string; streak: number; paused: boolean; cancelled: number; now: Date },
): Promise<void> {
  const facts = await readEndpointHealth(tx, input.endpointId, input.now);
  if (!facts) return;
  const signal: HealthSignal = input.paused ? { kind: 'paused' } : { kind: 'final-failure', streak: input.streak };
  await actOnHealth(tx, deps, { facts, signal, now: input.now, cancelled: input.cancelled });
}
