import { systemClock } from '../../../src/clock.js';
import type { Sql } from '../../../src/db/connect.js';
import { createOffer, sendOffer } from '../../../src/domain/offer-actions.js';

/**
 * The steady load under every fault: API reads on a few connections at once, and product actions
 * (an offer created and sent: one `offer.sent` event each) committed into the phase's workspace.
 */

/** A read still unanswered after this is counted as unanswered (and as the slowest answer). */
export const READ_GIVE_UP_MS = 15_000;
const READ_LOOPS = 4;
/** One event about every this many ms; a failed commit (database away) is tried again after it. */
const EVENT_EVERY_MS = 100;
/** A product action not done after this is abandoned (a connection the driver lost may never answer). */
const ACTION_GIVE_UP_MS = 5_000;

function withDeadline<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('product action took too long')), ACTION_GIVE_UP_MS);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/** The error codes of openapi.yaml "Errors"; any other non-2xx body would show something it must not. */
const ERROR_CODES = new Set(['unauthorized', 'not_found', 'invalid_request', 'method_not_allowed', 'rate_limited', 'internal_error']);

export interface ReadWindow {
  requests: number;
  non2xx: number;
  /** Non-2xx answers whose body is not the contract's error object (internals, HTML, nothing). */
  foreignBodies: number;
  slowestMs: number;
  statuses: Record<string, number>;
}

export interface ReadLoad {
  /** Starts counting a new window (the fault's), leaving the load running. */
  openWindow(): void;
  window(): ReadWindow;
  stop(): Promise<void>;
}

function emptyWindow(): ReadWindow {
  return { requests: 0, non2xx: 0, foreignBodies: 0, slowestMs: 0, statuses: {} };
}

function isContractError(body: string): boolean {
  try {
    const parsed = JSON.parse(body) as { error?: { code?: unknown; message?: unknown } };
    return typeof parsed.error?.message === 'string' && ERROR_CODES.has(String(parsed.error?.code));
  } catch {
    return false;
  }
}

export function startReads(baseUrl: string, key: string, offerId: string): ReadLoad {
  const paths = ['/workspace', '/offers?limit=5', `/offers/${offerId}`, `/offers/${offerId}/events?limit=5`];
  let current = emptyWindow();
  let stopping = false;
  const loop = async (n: number) => {
    for (let i = n; !stopping; i++) {
      const started = performance.now();
      let status = 'no answer';
      let body = '';
      try {
        const res = await fetch(baseUrl + paths[i % paths.length], {
          headers: { authorization: `Bearer ${key}` },
          signal: AbortSignal.timeout(READ_GIVE_UP_MS),
        });
        body = await res.text();
        status = String(res.status);
      } catch {
        // refused, reset or unanswered: counted below as a non-2xx answer
      }
      const ms = performance.now() - started;
      const window = current;
      window.requests++;
      window.slowestMs = Math.max(window.slowestMs, ms);
      window.statuses[status] = (window.statuses[status] ?? 0) + 1;
      if (!status.startsWith('2')) {
        window.non2xx++;
        if (!isContractError(body)) window.foreignBodies++;
        // A refused connection answers at once; do not spin on it.
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  };
  const loops = Array.from({ length: READ_LOOPS }, (_, n) => loop(n));
  return {
    openWindow() {
      current = emptyWindow();
    },
    window: () => current,
    async stop() {
      stopping = true;
      await Promise.all(loops);
    },
  };
}

export interface EventLoad {
  /** Commits that failed (database away); the events themselves are counted from the database. */
  failedCommits(): number;
  stop(): Promise<void>;
}

/** Creates and sends offers in `workspaceId` until stopped. */
export function startEvents(sql: Sql, workspaceId: string): EventLoad {
  let stopping = false;
  let failed = 0;
  const loop = (async () => {
    for (let n = 1; !stopping; n++) {
      try {
        const { id } = await withDeadline(createOffer(sql, systemClock, { workspaceId, title: `Fault load ${n}` }));
        await withDeadline(
          sendOffer(sql, systemClock, { offerId: id, recipientEmail: `buyer${n}@client.example`, expiresAt: new Date(Date.now() + 86_400_000) }),
        );
      } catch {
        failed++;
      }
      await new Promise((resolve) => setTimeout(resolve, EVENT_EVERY_MS));
    }
  })();
  return {
    failedCommits: () => failed,
    async stop() {
      stopping = true;
      await loop;
    },
  };
}

/** The truth about what was committed: every `sent` entry of the phase's workspace. */
export async function committedEvents(sql: Sql, workspaceId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n
      from offer_events e
      join offers o on o.id = e.offer_id
     where o.workspace_id = ${workspaceId}::uuid and e.type = 'sent'`;
  return row!.n;
}

/** Deliveries of the workspace not finished yet (queued, or claimed by a worker that may be gone). */
export async function openDeliveries(sql: Sql, workspaceId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n
      from webhook_deliveries
     where workspace_id = ${workspaceId}::uuid and status in ('pending', 'sending')`;
  return row!.n;
}
