import type { Sql } from '../../db/connect.js';
import { completeAttempts, type CompletedAttempt } from '../sql/completeAttempts.js';

/** Most attempts one completion statement records. */
const MAX_BATCH = 500;

/**
 * Group commit of attempt outcomes: attempts that finish while a completion statement is running
 * wait for it and then go together in the next one, so a worker under load writes one statement
 * per batch of outcomes instead of a transaction per attempt, and a lone attempt is recorded at
 * once (no timer: the batch is whatever finished during the previous write).
 */
export interface CompletionQueue {
  /** Resolves with whether the claim still held the delivery (false: cancelled or taken over). */
  complete(attempt: CompletedAttempt): Promise<boolean>;
}

interface Waiting {
  attempt: CompletedAttempt;
  resolve: (held: boolean) => void;
  reject: (error: unknown) => void;
}

export function createCompletionQueue(sql: Sql): CompletionQueue {
  let waiting: Waiting[] = [];
  let writing = false;

  async function write(): Promise<void> {
    while (waiting.length > 0) {
      const batch = waiting.slice(0, MAX_BATCH);
      waiting = waiting.slice(batch.length);
      try {
        const held = await completeAttempts(sql, batch.map((w) => w.attempt));
        for (const w of batch) w.resolve(held.has(w.attempt.deliveryId));
      } catch (thrown) {
        for (const w of batch) w.reject(thrown);
      }
    }
    writing = false;
  }

  return {
    complete(attempt) {
      return new Promise<boolean>((resolve, reject) => {
        waiting.push({ attempt, resolve, reject });
        if (writing) return;
        writing = true;
        // Outcomes settled in the same turn of the event loop join this first batch.
        setImmediate(() => void write());
      });
    },
  };
}

/** Without a queue (a single attempt driven by a test): one statement for this outcome. */
export async function completeOne(sql: Sql, attempt: CompletedAttempt): Promise<boolean> {
  return (await completeAttempts(sql, [attempt])).has(attempt.deliveryId);
}
