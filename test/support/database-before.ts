import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, inject } from 'vitest';
import { connect, type Sql } from '../../src/db/connect.js';
import { readMigrations } from '../../src/db/migrate.js';

type Migration = ReturnType<typeof readMigrations>[number];
import { withDatabase } from './postgres-server.js';

/**
 * For a migration's own test: a fresh database (made in beforeAll, dropped in afterAll) with every
 * migration numbered before the one named applied and recorded, so the test writes rows of the old
 * shape and then runs `migrate`.
 */
export function useDatabaseBefore(migrationName: string): { sql: Sql; migration: Migration } {
  const migration = readMigrations().find((m) => m.name === migrationName);
  if (!migration) throw new Error(`no migration named ${migrationName}`);
  const name = `offerdesk_m_${randomBytes(6).toString('hex')}`;
  let admin: Sql;
  const handle = { migration } as { sql: Sql; migration: Migration };

  beforeAll(async () => {
    admin = connect(inject('adminDatabaseUrl'), { max: 1 });
    await admin.unsafe(`create database ${name}`);
    const sql = connect(withDatabase(inject('adminDatabaseUrl'), name), { max: 1 });
    handle.sql = sql;
    await sql`create table schema_migrations (version integer primary key, name text not null, applied_at timestamptz not null default now())`;
    for (const earlier of readMigrations().filter((m) => m.version < migration.version)) {
      await sql.unsafe(earlier.sql);
      await sql`insert into schema_migrations (version, name) values (${earlier.version}, ${earlier.name})`;
    }
  });
  afterAll(async () => {
    await handle.sql.end();
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  });

  return handle;
}
