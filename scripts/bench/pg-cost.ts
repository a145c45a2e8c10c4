import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Sql } from '../../src/db/connect.js';
import { sleep } from './processes.js';

/**
 * What a webhook phase costs PostgreSQL, per delivery (docs/performance.md "Webhooks"): CPU of the bench database's
 * backends, WAL bytes and records, and index entries written. A meter is started once the phase's endpoints are in
 * place and the previous phase's rows are cleared, and read after its last arrival: the bench's own event commits,
 * its polling and the VACUUM/ANALYZE stand-in (autoanalyze.ts) fall inside, as they would in production.
 *
 * CPU: utime + stime from /proc/<pid>/stat of every backend pg_stat_activity shows on the bench database, sampled
 * every SAMPLE_MS; a backend first seen after the start counts from zero. A backend that exits between two samples
 * loses what it used since the last one, so the figure errs low (by under SAMPLE_MS of CPU per exited backend: the
 * workers' pools do not churn, parallel and autovacuum workers may). The walwriter, checkpointer and background
 * writer serve every database of the server, so their CPU is kept apart (`backgroundCpuUsPerDelivery`), not added.
 * Null where the server's processes cannot be read (another host or container).
 *
 * WAL: pg_stat_wal is the whole server's, so another database written meanwhile (tests, another bench, CREATE DATABASE)
 * inflates it; `otherDatabasesRowsWritten` says how much other databases wrote (pg_stat_database). The bench database's
 * own share is read from the WAL itself with pg_walinspect (record lengths, the unit of pg_stat_wal.wal_bytes): every
 * record touching one of its blocks, and every record of a transaction that did (commits). Records of no database
 * (checkpoints, running-transaction snapshots) are left out. A temporary replication slot keeps the phase's WAL from
 * the checkpoints that would recycle it meanwhile (other databases' CREATE DATABASE forces them); it is dropped at the
 * phase's end, or by the server when the bench's session ends. Null without the extension or the slot's WAL.
 *
 * Index entries: PostgreSQL 15 counts none directly; per table, (inserts + non-HOT updates) x its indexes, from
 * pg_stat_user_tables and pg_index. A partial index is counted for every row (an upper bound, so `partialIndexes`
 * says how many there are); deletes write no index entry.
 *
 * Cumulative statistics reach the shared counters when a backend flushes them (at most once a second while busy, at
 * exit): the workers' backends have exited when the end is read, and the bench's own are made to flush first.
 */

/** Clock ticks per second of /proc (USER_HZ, `getconf CLK_TCK`; 100 on Linux). */
const TICKS_PER_SECOND = (() => {
  const out = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const value = Number(out.stdout?.trim());
  return out.status === 0 && Number.isFinite(value) && value > 0 ? value : 100;
})();
const US_PER_TICK = 1_000_000 / TICKS_PER_SECOND;
const SAMPLE_MS = 1_000;
/** Longest wait for other clients' backends (the stopped workers') to exit before the counters are read. */
const EXIT_WAIT_MS = 5_000;
/** Server processes outside any database whose CPU is reported beside the backends'. */
const BACKGROUND = ['walwriter', 'checkpointer', 'background writer'];

/** A table's writes over the phase and the index entries they made (upper bound with partial indexes). */
export interface TableWrites {
  table: string;
  inserted: number;
  updated: number;
  hotUpdated: number;
  deleted: number;
  indexes: number;
  partialIndexes: number;
  indexEntries: number;
  indexEntriesPerDelivery: number;
}

export interface PgCost {
  deliveries: number;
  pgCpuUsPerDelivery: number | null;
  /** Walwriter, checkpointer and background writer: the whole server's, not in pgCpuUsPerDelivery. */
  backgroundCpuUsPerDelivery: number | null;
  /** Backends of the bench database seen over the phase (a pool that churns shows here). */
  backendsSeen: number;
  /** The bench database's WAL (pg_walinspect); null where it cannot be read. */
  databaseWalBytesPerDelivery: number | null;
  databaseWalRecordsPerDelivery: number | null;
  /** Of its WAL bytes, full-page images: as many as checkpoints came (another database's can force one), so noisy. */
  databaseWalFpiBytesPerDelivery: number | null;
  /** The whole server's WAL (pg_stat_wal). */
  walBytesPerDelivery: number;
  walRecordsPerDelivery: number;
  indexEntriesPerDelivery: number;
  /** Rows other databases of the server inserted, updated or deleted meanwhile: their WAL is in the figures above. */
  otherDatabasesRowsWritten: number;
  /** Tables that changed, most index entries first. */
  tables: TableWrites[];
}

/** [pid, starttime] of a process and its utime + stime; null if it is gone or no PostgreSQL process of this machine. */
function readTicks(pid: number): { key: string; ticks: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== 'postgres') return null;
    // Fields after the command name (which may hold spaces): state is fields[0], utime [11], stime [12], starttime [19].
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { key: `${pid}:${fields[19]}`, ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return null;
  }
}

interface Counters {
  walBytes: number;
  walRecords: number;
  otherRows: number;
  tables: Map<string, { ins: number; upd: number; hot: number; del: number; indexes: number; partial: number }>;
}

/**
 * Makes the bench's own backends flush their pending statistics (each of `poolSize` connections runs one statement
 * at once, so each gets one), then reads the server's counters.
 */
async function readCounters(sql: Sql, poolSize: number): Promise<Counters> {
  await Promise.all(Array.from({ length: poolSize }, () => sql`select pg_stat_force_next_flush(), pg_sleep(0.05)`));
  const [wal] = await sql<{ bytes: number; records: number; other: number }[]>`
    select wal_bytes::float8 as bytes, wal_records::float8 as records,
           (select coalesce(sum(tup_inserted + tup_updated + tup_deleted), 0)::float8 from pg_stat_database
             where datname is distinct from current_database()) as other
      from pg_stat_wal`;
  const rows = await sql<{ name: string; ins: number; upd: number; hot: number; del: number; indexes: number; partial: number }[]>`
    select s.relid::regclass::text as name, s.n_tup_ins::float8 as ins, s.n_tup_upd::float8 as upd, s.n_tup_hot_upd::float8 as hot,
           s.n_tup_del::float8 as del, count(i.indexrelid)::int as indexes, count(i.indpred)::int as partial
      from pg_stat_user_tables s left join pg_index i on i.indrelid = s.relid
     group by s.relid, s.n_tup_ins, s.n_tup_upd, s.n_tup_hot_upd, s.n_tup_del`;
  return { walBytes: wal!.bytes, walRecords: wal!.records, otherRows: wal!.other, tables: new Map(rows.map(({ name, ...r }) => [name, r])) };
}

/** pg_walinspect in the bench database, if the server has it (a contrib module; creating it needs a superuser). */
async function walInspectable(sql: Sql): Promise<boolean> {
  try {
    await sql`create extension if not exists pg_walinspect`;
    return true;
  } catch {
    return false;
  }
}

let slots = 0;

/** A temporary physical slot reserving WAL from now on, on a connection of its own; release() drops it. Null if refused. */
async function holdWal(sql: Sql): Promise<{ release(): Promise<void> } | null> {
  const session = await sql.reserve();
  const name = `offerdesk_bench_wal_${process.pid}_${++slots}`;
  try {
    await session`select pg_create_physical_replication_slot(${name}, true, true)`;
  } catch {
    session.release();
    return null;
  }
  return {
    async release() {
      await session`select pg_drop_replication_slot(${name})`.catch(() => {});
      session.release();
    },
  };
}

/** WAL records from `start` to what is flushed now that belong to the bench database; null if unreadable. */
async function databaseWal(sql: Sql, start: string): Promise<{ bytes: number; records: number; fpiBytes: number } | null> {
  try {
    const [oid] = await sql<{ oid: number }[]>`select oid::int from pg_database where datname = current_database()`;
    // A block reference reads "rel <tablespace>/<database>/<relfilenode> fork ...".
    const [row] = await sql<{ bytes: number; records: number; fpiBytes: number }[]>`
      with records as materialized (
        select xid, record_length, fpi_length, strpos(coalesce(block_ref, ''), ${`/${oid!.oid}/`}) > 0 as ours
          from pg_get_wal_records_info(${start}::pg_lsn, pg_current_wal_flush_lsn())
      ),
      transactions as (select distinct xid from records where ours and xid <> '0'::xid)
      select coalesce(sum(record_length), 0)::float8 as bytes, count(*)::float8 as records, coalesce(sum(fpi_length), 0)::float8 as "fpiBytes"
        from records where ours or xid in (select xid from transactions)`;
    return row!;
  } catch {
    return null;
  }
}

export type PgCostMeter = Awaited<ReturnType<typeof startPgCostMeter>>;

/** Starts the phase's meter on the bench database's pool (`poolSize` connections); stopCpu() before the workers stop, result() after. */
export async function startPgCostMeter(sql: Sql, poolSize: number) {
  // Per backend (pid and start time, so a reused pid is another backend): ticks when first and last seen.
  const backends = new Map<string, { first: number; last: number; background: boolean }>();
  let readable = true;
  let started = false;
  const sample = async () => {
    const activity = await sql<{ pid: number; background: boolean }[]>`
      select pid, backend_type = any (${BACKGROUND}) as background from pg_stat_activity
       where datname = current_database() or backend_type = any (${BACKGROUND})`;
    for (const { pid, background } of activity) {
      const now = readTicks(pid);
      if (!now) continue;
      const seen = backends.get(now.key);
      if (seen) seen.last = now.ticks;
      else backends.set(now.key, { first: started ? 0 : now.ticks, last: now.ticks, background });
    }
  };
  const [own] = await sql<{ pid: number }[]>`select pg_backend_pid() as pid`;
  if (!readTicks(own!.pid)) readable = false;
  const inspectable = await walInspectable(sql);
  // Read while every connection is in the pool: the slot's reserved one would keep its pending counters.
  const before = await readCounters(sql, poolSize);
  const slot = inspectable ? await holdWal(sql) : null;
  const [start] = await sql<{ lsn: string }[]>`select pg_current_wal_insert_lsn()::text as lsn`;
  if (readable) await sample();
  started = true;
  let running: Promise<void> | null = null;
  const timer = setInterval(() => (running ??= sample().catch(() => {}).finally(() => (running = null))), SAMPLE_MS);
  timer.unref();
  let stopped = false;

  const stopCpu = async () => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    await running;
    if (readable) await sample();
  };

  const result = async (deliveries: number): Promise<PgCost> => {
    await stopCpu();
    // A stopped worker's backends flush their counters as they exit, a moment after its process ended.
    const othersGone = async () => {
      const [row] = await sql<{ n: number }[]>`
        select count(*)::int as n from pg_stat_activity
         where datname = current_database() and backend_type = 'client backend' and application_name <> current_setting('application_name')`;
      return row!.n === 0;
    };
    for (const deadline = Date.now() + EXIT_WAIT_MS; !(await othersGone()) && Date.now() < deadline; ) await sleep(50);
    const wal = inspectable ? await databaseWal(sql, start!.lsn) : null;
    await slot?.release();
    const after = await readCounters(sql, poolSize);
    const per = (value: number) => value / Math.max(1, deliveries);
    const ticks = (background: boolean) => [...backends.values()].filter((b) => b.background === background).reduce((sum, b) => sum + b.last - b.first, 0);
    const tables: TableWrites[] = [];
    for (const [table, a] of after.tables) {
      const b = before.tables.get(table) ?? { ins: 0, upd: 0, hot: 0, del: 0 };
      const [inserted, updated, hotUpdated, deleted] = [a.ins - b.ins, a.upd - b.upd, a.hot - b.hot, a.del - b.del];
      if (inserted + updated + deleted === 0) continue;
      const indexEntries = (inserted + updated - hotUpdated) * a.indexes;
      tables.push({ table, inserted, updated, hotUpdated, deleted, indexes: a.indexes, partialIndexes: a.partial, indexEntries, indexEntriesPerDelivery: per(indexEntries) });
    }
    tables.sort((x, y) => y.indexEntries - x.indexEntries || x.table.localeCompare(y.table));
    return {
      deliveries,
      pgCpuUsPerDelivery: readable ? per(ticks(false) * US_PER_TICK) : null,
      backgroundCpuUsPerDelivery: readable ? per(ticks(true) * US_PER_TICK) : null,
      backendsSeen: [...backends.values()].filter((b) => !b.background).length,
      databaseWalBytesPerDelivery: wal && per(wal.bytes),
      databaseWalRecordsPerDelivery: wal && per(wal.records),
      databaseWalFpiBytesPerDelivery: wal && per(wal.fpiBytes),
      walBytesPerDelivery: per(after.walBytes - before.walBytes),
      walRecordsPerDelivery: per(after.walRecords - before.walRecords),
      indexEntriesPerDelivery: per(tables.reduce((sum, t) => sum + t.indexEntries, 0)),
      otherDatabasesRowsWritten: after.otherRows - before.otherRows,
      tables,
    };
  };
  return { stopCpu, result };
}
