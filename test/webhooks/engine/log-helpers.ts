import type { LogDeps, LogQuery } from '../../../src/webhooks/management/log-page.js';
import { listDeliveryLogPage } from '../../../src/webhooks/management/log-page.js';
import type { EngineFixture } from './helpers.js';

/** The log read with the worker settings the fixture's engine runs with. */
export function logDeps(f: EngineFixture): LogDeps {
  return {
    sql: f.sql,
    clock: f.clock,
    config: {
      ...f.manage.config,
      workerConcurrency: f.deps.settings.concurrency,
      startsPerMinutePerWorkspace: f.deps.settings.startsPerMinutePerWorkspace,
    },
  };
}

/** Every page of a filtered log, `limit` rows at a time, following the keyset position. */
export async function walkLog(f: EngineFixture, query: LogQuery, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let after: { createdAt: string; id: string } | null = null;
  for (let guard = 0; guard < 10_000; guard++) {
    const { rows } = await listDeliveryLogPage(logDeps(f), { ...query, after, limit });
    ids.push(...rows.map((row) => row.id));
    if (rows.length < limit) return ids;
    after = { createdAt: rows.at(-1)!.key, id: rows.at(-1)!.id };
  }
  throw new Error('walk did not end');
}
