import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { connect, type Sql } from '../../src/db/connect.js';
import { migrate, readMigrations } from '../../src/db/migrate.js';
import { withDatabase } from '../support/postgres-server.js';

/** The console migration on a database that already has keys (made before key_prefix existed). */
const CONSOLE_MIGRATION = readMigrations().find((m) => m.name === 'console')!;
let admin: Sql;
let sql: Sql;
const name = `offerdesk_m_${randomBytes(6).toString('hex')}`;

beforeAll(async () => {
  admin = connect(inject('adminDatabaseUrl'), { max: 1 });
  await admin.unsafe(`create database ${name}`);
  sql = connect(withDatabase(inject('adminDatabaseUrl'), name), { max: 1 });
  await sql`create table schema_migrations (version integer primary key, name text not null, applied_at timestamptz not null default now())`;
  for (const migration of readMigrations().filter((m) => m.version < CONSOLE_MIGRATION.version)) {
    await sql.unsafe(migration.sql);
    await sql`insert into schema_migrations (version, name) values (${migration.version}, ${migration.name})`;
  }
});
afterAll(async () => {
  await sql.end();
  await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.end();
});

describe('migration console', () => {
  it('backfills the visible prefix of existing keys from the fixed prefix and the known last four', async () => {
    const [ws] = await sql`insert into workspaces (name, timezone, currency) values ('Old', 'UTC', 'EUR') returning id`;
    await sql`
      insert into api_keys (workspace_id, name, key_hash, key_hint)
      values (${ws!.id}::uuid, 'Old key', ${randomBytes(32)}, 'wxyz')`;
    // This migration and the ones numbered after it (each branch may add its own) are applied.
    const pending = readMigrations().filter((m) => m.version >= CONSOLE_MIGRATION.version).map((m) => m.version);
    expect(pending[0]).toBe(CONSOLE_MIGRATION.version);
    expect(await migrate(sql)).toEqual(pending);
    const [key] = await sql`select key_prefix from api_keys`;
    expect(key!.key_prefix).toBe('odk_live_…wxyz');
  });
});
