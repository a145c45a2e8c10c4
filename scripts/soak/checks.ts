import { readFileSync } from 'node:fs';
import type { Sql } from '../../src/db/connect.js';

/** The end-of-run table: one line per check (name, figure, bound, pass/FAIL). */
export interface CheckRow {
  name: string;
  figure: string;
  bound: string;
  pass: boolean;
}

export function formatTable(rows: CheckRow[]): string {
  const header = ['check', 'figure', 'bound', 'result'];
  const cells = rows.map((r) => [r.name, r.figure, r.bound, r.pass ? 'pass' : 'FAIL']);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => `| ${c.map((v, i) => v.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...cells.map(line)].join('\n');
}

/**
 * Work the service has not finished: webhook deliveries still queued (but those to the endpoints
 * that never answer 2xx, which wait for their retries by design), events in the webhook outbox,
 * mails not yet handed to the SMTP server. The only read of the service's own tables in the soak,
 * kept in one place: these tables are the delivery path's, which may change.
 */
export async function openWork(sql: Sql): Promise<{ queue: number; outbox: number; mail: number }> {
  const [row] = await sql<{ queue: number; outbox: number; mail: number }[]>`
    select (select count(*)::int from webhook_queue q join webhook_endpoints e on e.id = q.endpoint_id
             where e.url not like '%/gone') as queue,
           (select count(*)::int from webhook_outbox) as outbox,
           (select count(*)::int from mail_outbox where status = 'pending') as mail`;
  return row!;
}

export function rssMb(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** `nodejs_heap_size_used_bytes` of the process's /metrics (prom-client's default metrics). */
export async function heapMb(metricsPort: number): Promise<number | null> {
  try {
    const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`, { signal: AbortSignal.timeout(3_000) });
    const text = await res.text();
    const match = /^nodejs_heap_size_used_bytes(?:\{[^}]*\})? ([0-9.e+]+)/m.exec(text);
    return match ? Number(match[1]) / 2 ** 20 : null;
  } catch {
    return null;
  }
}
