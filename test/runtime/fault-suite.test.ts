import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { redisServerAvailable } from '../support/faults/redis-process.js';
import { formatTable, runFault, selectFaults, type FaultRow } from '../support/faults/run.js';
import { buildWorld, type World } from '../support/faults/world.js';
import { freshDatabase, type TestDatabase } from '../support/database.js';

// The short subset of `npm run faults` (docs/reliability.md): `serve`, two workers, a redis-server
// and an HTTPS receiver as real processes under steady reads and events, with Redis frozen and
// then slow clients. Every bound of each row must hold; nothing committed may be lost.

const SUBSET = ['redis-frozen', 'slow-clients'];

describe.skipIf(!redisServerAvailable())('the fault suite, short subset', () => {
  let db: TestDatabase;
  let world: World;
  const workDir = mkdtempSync(join(tmpdir(), 'offerdesk-faults-test-'));
  beforeAll(async () => {
    chmodSync(workDir, 0o711);
    db = await freshDatabase();
    world = await buildWorld({ workDir, databaseUrl: db.url, log: () => {} });
  }, 120_000);
  afterAll(async () => {
    await world?.close();
    await db?.drop();
    rmSync(workDir, { recursive: true, force: true });
  }, 60_000);

  it('holds every bound with Redis frozen and with slow clients, losing no event', async () => {
    const { run, skipped } = selectFaults(SUBSET, false);
    expect(skipped).toEqual([]);
    expect(run.map((fault) => fault.name)).toEqual(['baseline', ...SUBSET]);
    const rows: FaultRow[] = [];
    for (const fault of run) rows.push(await runFault(world, fault, () => {}, rows[0]?.slowestMs ?? 0));

    const table = formatTable(rows);
    for (const row of rows) {
      expect(row.problems, `${row.fault}:\n${table}`).toEqual([]);
      expect(row.requests).toBeGreaterThan(20);
      expect(row.committed).toBeGreaterThan(0);
      expect(row.delivered).toBe(row.committed);
      expect(row.non2xx).toBe(0);
    }
  }, 240_000);
});
