import type { Queryable } from '../../db/connect.js';
import { MAX_RESENDS } from '../engine/policy.js';

/**
 * The condition "this delivery log row has a resend left" (openapi.yaml "Webhook delivery and
 * retries": "up to 5 times"; policy.ts hasResendLeft in code), over the row's `resend_count`.
 * requeueForResend takes the rows it holds and countFailedSince counts them, so "resend failed
 * since" previews exactly the rows it then resends.
 */
export function resendLeft(sql: Queryable) {
  return sql`resend_count < ${MAX_RESENDS}`;
}
