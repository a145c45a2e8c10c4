import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { migrationsDir } from '../paths.js';
import { advisoryLockKey } from './advisory-lock.js';
import type { Sql } from './connect.js';

interface Migration {
  version: number;
  name: string;
  sql: string;
}

const MIGRATION_FILE = /^(\d{4})_([a-z0-9_]+)\.sql$/;

export function readMigrations(dir = migrationsDir): Migration[] {
  return readdirSync(dir)
    .filter((file) => MIGRATION_FILE.test(file))
    .sort()
    .map((file) => {
      const [, version, name] = MIGRATION_FILE.exec(file)!;
      return { version: Number(version), name: name!, sql: readFileSync(join(dir, file), 'utf8') };
    });
}

// Serialises concurrent runners (several API processes starting at once); the primary key on
// schema_migrations.version is the second line of defence (graphile-worker's migrate.ts).
const MIGRATION_LOCK = advisoryLockKey('migrate');

/** Applies pending migrations, each in its own transaction with its row written first. */
export async function migrate(sql: Sql, log: (line: string) => void = () => {}): Promise<number[]> {
  await sql`
    create table if not exists schema_migrations (
      version integer constraint schema_migrations_pkey primary key,
      name text not null,
      applied_at timestamptz not null default now()
    )`;
  const applied: number[] = [];
  for (const migration of readMigrations()) {
    const done = await sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK}::bigint)`;
      const inserted = await tx`
        insert into schema_migrations (version, name) values (${migration.version}, ${migration.name})
        on conflict (version) do nothing
        returning version`;
      if (inserted.length === 0) return false;
      await tx.unsafe(migration.sql);
      return true;
    });
    if (done) {
      applied.push(migration.version);
      log(`applied migration ${String(migration.version).padStart(4, '0')}_${migration.name}`);
    }
  }
  return applied;
}
