import { DAY, HOUR, MINUTE, SECOND } from '../clock.js';

/** The periodic jobs' policy numbers, each named with its unit. */

/** openapi.yaml "Webhook events": "offer.expired is detected every 15 minutes". */
export const EXPIRY_JOB_INTERVAL_MS = 15 * MINUTE;
/** docs/delivery-log.md "Retention": delivery log retention. */
export const DELIVERY_LOG_RETENTION_MS = 30 * DAY;
/** How often the delivery log is trimmed to DELIVERY_LOG_RETENTION_MS. */
export const RETENTION_JOB_INTERVAL_MS = 6 * HOUR;
/** How often the delivery log's daily partitions are made ahead (migration 0020). */
export const LOG_PARTITIONS_JOB_INTERVAL_MS = 6 * HOUR;
/**
 * Days made ahead of today (UTC): a day's partition exists before the day begins, so its rows
 * never land in the default partition unless the jobs stood still for this long.
 */
export const LOG_PARTITION_DAYS_AHEAD = 3;
/**
 * Longest wait for the lock a partition's attach or drop takes (the parent's, or the default
 * partition's): a console read holding it makes the job give up and try again next period
 * instead of queueing every read and write of the log behind it.
 */
export const LOG_PARTITION_LOCK_TIMEOUT_MS = 5 * SECOND;
/** Rows deleted per retention statement, so a large backlog never holds long locks. */
export const RETENTION_BATCH_SIZE = 5_000;
/** How often a worker asks whether a periodic job is due (wall time; the jobs' periods are far longer). */
export const JOBS_CHECK_INTERVAL_MS = 5 * SECOND;
