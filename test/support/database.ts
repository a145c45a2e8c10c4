import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { connect, type Sql } from '../../src/db/connect.js';
import { withDatabase } from './postgres-server.js';

export interface TestDatabase {
  sql: Sql;
  url: string;
  drop(): Promise<void>;
}

/** A fresh, migrated database cloned from the run's template. Call in beforeAll; drop in afterAll. */
export async function freshDatabase(): Promise<TestDatabase> {
  const adminUrl = inject('adminDatabaseUrl');
  const template = inject('templateDatabase');
  const name = `offerdesk_t_${randomBytes(6).toString('hex')}`;
  const admin = connect(adminUrl, { max: 1 });
  // Two files cloning the template at the same instant can collide (SQLSTATE 55006,
  // "source database is being accessed by other users"): that one is retried.
  for (let attempt = 1; ; attempt++) {
    try {
      await admin.unsafe(`create database ${name} template ${template}`);
      break;
    } catch (error) {
      if ((error as { code?: string }).code !== '55006' || attempt >= 20) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
  const url = withDatabase(adminUrl, name);
  const sql = connect(url, { max: 5 });
  return {
    sql,
    url,
    async drop() {
      await sql.end();
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}
