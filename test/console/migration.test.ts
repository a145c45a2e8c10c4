import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { migrate, readMigrations } from '../../src/db/migrate.js';
import { useDatabaseBefore } from '../support/database-before.js';

/** The console migration on a database that already has keys (made before key_prefix existed). */
const db = useDatabaseBefore('console');

describe('migration console', () => {
  it('backfills the visible prefix of existing keys from the fixed prefix and the known last four', async () => {
    const [ws] = await db.sql`insert into workspaces (name, timezone, currency) values ('Old', 'UTC', 'EUR') returning id`;
    await db.sql`
      insert into api_keys (workspace_id, name, key_hash, key_hint)
      values (${ws!.id}::uuid, 'Old key', ${randomBytes(32)}, 'wxyz')`;
    // This migration and the ones numbered after it (each branch may add its own) are applied.
    const pending = readMigrations().filter((m) => m.version >= db.migration.version).map((m) => m.version);
    expect(pending[0]).toBe(db.migration.version);
    expect(await migrate(db.sql)).toEqual(pending);
    const [key] = await db.sql`select key_prefix from api_keys`;
    expect(key!.key_prefix).toBe('odk_live_…wxyz');
  });
});
