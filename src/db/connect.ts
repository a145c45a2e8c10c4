import postgres from 'postgres';

export type Sql = postgres.Sql<{ bigint: number }>;
export type Tx = postgres.TransactionSql<{ bigint: number }>;
/** Either the pool or an open transaction: domain operations accept both. */
export type Queryable = Sql | Tx;

export interface ConnectOptions {
  max?: number;
  /** Application name shown in pg_stat_activity, so operators can tell API, worker and CLI apart. */
  applicationName?: string;
  /** Called for every query sent (postgres.js `debug`): query logging, round-trip counting. */
  debug?: (connection: number, query: string, parameters: unknown[]) => void;
}

/**
 * One pool per process. Sessions run in UTC so `::text` casts of timestamps are unambiguous
 * (cursors carry them verbatim).
 */
export function connect(url: string, options: ConnectOptions = {}): Sql {
  return postgres(url, {
    max: options.max ?? 10,
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
}
