import type { Command } from 'commander';
import { rekeySecrets } from '../../webhooks/management/rekey.js';
import { loadMasterKeys } from '../../sealing/master-keys.js';
import { CliError, parseWholeNumber, type CliContext } from '../context.js';

/**
 * `offerdesk secrets rekey`: after rotating OFFERDESK_MASTER_KEY (old key listed in
 * OFFERDESK_MASTER_KEYS_PREVIOUS), re-seals every endpoint secret under the current key.
 * Progress goes to stderr; the result (stdout) says how many were re-sealed.
 */
export function register(program: Command, ctx: CliContext): void {
  const secrets = program.command('secrets').description('endpoint secrets sealed with the master key');
  secrets
    .command('rekey')
    .description('re-seal every endpoint secret under the current master key (resumable; safe beside running workers)')
    .option('--batch-size <n>', 'endpoints per committed batch (default 200)', parseWholeNumber)
    .option('--json', 'print one JSON object')
    .action((options: { batchSize?: number; json?: boolean }) =>
      ctx.run(
        options,
        async ({ sql, config }) => {
          if (options.batchSize !== undefined && options.batchSize < 1) throw new CliError('--batch-size must be at least 1');
          const result = await rekeySecrets(sql, loadMasterKeys(config), {
            batchSize: options.batchSize,
            progress: (p) => process.stderr.write(`rekey: ${p.done}/${p.total} endpoints looked at, ${p.resealed} re-sealed\n`),
          });
          if (result.unopenable.length > 0) {
            throw new CliError(
              `${result.resealed} re-sealed under key id ${result.key_id}, but ${result.unopenable.length} secret(s) open with no configured key ` +
                `(endpoints ${result.unopenable.slice(0, 5).join(', ')}${result.unopenable.length > 5 ? ', ...' : ''}); ` +
                'add the key they were sealed with to OFFERDESK_MASTER_KEYS_PREVIOUS and run again, or rotate those endpoints\' secrets',
            );
          }
          return result;
        },
        (r) => `${r.resealed} endpoint secret(s) re-sealed under master key id ${r.key_id}`,
      ),
    );
}
