import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { connect } from '../../src/db/connect.js';
import { migrate } from '../../src/db/migrate.js';
import { startTestPostgres } from './postgres-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
    templateDatabase: string;
  }
}

/**
 * One migrated template database per test run; every test file clones it (graphile-worker's
 * helpers.ts), so files run in parallel on fresh databases without re-running migrations.
 */
export default async function setup(project: TestProject) {
  const server = await startTestPostgres();
  const template = `offerdesk_tpl_${randomBytes(5).toString('hex')}`;
  const admin = connect(server.adminUrl, { max: 1 });
  await admin.unsafe(`create database ${template}`);
  const sql = connect(server.urlFor(template), { max: 1 });
  await migrate(sql);
  await sql.end();
  project.provide('adminDatabaseUrl', server.adminUrl);
  project.provide('templateDatabase', template);

  return async () => {
    await admin.unsafe(`drop database if exists ${template} with (force)`);
    await admin.end();
    await server.stop();
  };
}
