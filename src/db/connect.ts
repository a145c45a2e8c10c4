import postgres from 'postgres';
import { traceQueries } from '../telemetry/tracing.js';

export type Sql = postgres.Sql<{ bigint: number }>;
export type Tx = postgres.TransactionSql<{ bigint: number }>;
/** Either the pool or an open transaction: domain operations accept both. */
export type Queryable = Sql | Tx;
/** A piece of SQL made with the tagged template, not yet sent: a part of a larger statement. */
export type Fragment = postgres.PendingQuery<postgres.Row[]>;

export interface ConnectOptions {
  max?: number;
  /** Application name shown in pg_stat_activity, so operators can tell API, worker and CLI apart. */
  applicationName?: string;
  /** Called for every query sent (postgres.js `debug`): query logging, round-trip counting. */
  debug?: (connection: number, query: string, parameters: unknown[]) => void;
}

/**
 * Longest pause before reconnecting after a failed connection attempt. postgres.js backs off up to
 * 20 s, and queries wait for a connection meanwhile: after a short database outage a request
 * could wait that long for a database that is back. Capped, it waits at most about this long.
 */
const RECONNECT_BACKOFF_CAP_SECONDS = 1;

/** postgres.js's own curve (with its jitter), capped. */
function reconnectBackoff(retries: number): number {
  return (0.5 + Math.random() / 2) * Math.min(3 ** retries / 100, RECONNECT_BACKOFF_CAP_SECONDS);
}

/**
 * One pool per process. Sessions run in UTC so `::text` casts of timestamps are unambiguous
 * (cursors carry them verbatim).
 */
export function connect(url: string, options: ConnectOptions = {}): Sql {
  const sql = postgres(url, {
    max: options.max ?? 10,
    backoff: reconnectBackoff,
    onnotice: () => {},
    debug: options.debug,
    connection: { application_name: options.applicationName ?? 'offerdesk', TimeZone: 'UTC' },
    types: {
      // int8 columns (money amounts) are bounded to 2^53-1 by CHECK constraints, so a JS number
      // holds them exactly; postgres.js would otherwise hand them back as strings.
      bigint: {
        to: 20,
        from: [20],
        serialize: (value: number) => String(value),
        parse: (value: string) => Number(value),
      },
    },
  }) as unknown as Sql;
  // With tracing on, each statement sent inside a span gets its own (telemetry/tracing-postgres.ts);
  // the probe is a query made only to reach postgres.js's query class, never sent.
  traceQueries(() => sql`select 1`);
  return sql;
}
