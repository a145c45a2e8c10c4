import type { Command } from 'commander';
import { loadConfig } from '../../config.js';
import { openDatabase } from '../../db/open.js';

export function register(program: Command): void {
  program
    .command('migrate')
    .description('apply pending database migrations (serve also applies them at start)')
    .option('--json', 'print the result as one JSON object')
    .action(async (options: { json?: boolean }) => {
      const config = loadConfig();
      const db = await openDatabase(config, { applicationName: 'offerdesk-migrate' });
      try {
        if (options.json) {
          process.stdout.write(`${JSON.stringify({ applied: db.applied, embedded: db.embedded })}\n`);
        } else if (db.applied.length === 0) {
          process.stdout.write('database schema is up to date; no migrations to apply\n');
        } else {
          for (const name of db.applied) process.stdout.write(`applied ${name}\n`);
        }
      } finally {
        await db.close();
      }
    });
}
