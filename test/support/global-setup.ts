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

interface Template {
  adminUrl: string;
  name: string;
  drop(): Promise<void>;
}

/**
 * vitest runs this setup once per project (six with the root), one after the other, before any
 * test starts; the projects run in one process, so they share one template (through globalThis,
 * which their module loaders do not separate) and the last teardown drops it.
 */
const shared = globalThis as { offerdeskTestTemplate?: { template: Promise<Template>; users: number } };

async function createTemplate(): Promise<Template> {
  const server = await startTestPostgres();
  const name = `offerdesk_tpl_${randomBytes(5).toString('hex')}`;
  const admin = connect(server.adminUrl, { max: 1 });
  await admin.unsafe(`create database ${name}`);
  const sql = connect(server.urlFor(name), { max: 1 });
  await migrate(sql);
  await sql.end();
  return {
    adminUrl: server.adminUrl,
    name,
    async drop() {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
      await server.stop();
    },
  };
}

/**
 * One migrated template database per test run; every test file clones it (graphile-worker's
 * helpers.ts), so files run in parallel on fresh databases without re-running migrations.
 */
export default async function setup(project: TestProject) {
  shared.offerdeskTestTemplate ??= { template: createTemplate(), users: 0 };
  const entry = shared.offerdeskTestTemplate;
  entry.users += 1;
  const template = await entry.template;
  project.provide('adminDatabaseUrl', template.adminUrl);
  project.provide('templateDatabase', template.name);

  return async () => {
    entry.users -= 1;
    if (entry.users > 0) return;
    delete shared.offerdeskTestTemplate;
    await template.drop();
  };
}
