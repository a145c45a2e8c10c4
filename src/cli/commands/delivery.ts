import type { Command } from 'commander';
import { listEndpointDeliveries, showDeliveryLogEntry, type DeliveryLogView } from '../../webhooks/management/delivery-log.js';
import { managementDeps } from '../../webhooks/management/deps.js';
import { invalidInput } from '../../domain/errors.js';
import { MAX_RESENDS } from '../../webhooks/engine/policy.js';
import { showEndpoint } from '../../webhooks/management/endpoints.js';
import { previewResendFailed, resendDelivery, resendFailed } from '../../webhooks/management/resend.js';
import { requireDeliveryReader, requireEndpointReader } from '../../webhooks/management/readers.js';
import { requireOneActor, resolveActor, withActor, type ActorOptions } from '../actor.js';
import { parseWholeNumber, type CliContext } from '../context.js';

/** `offerdesk delivery ...`: the delivery log of an endpoint, read as the console reads it. */

function line(d: DeliveryLogView): string {
  const last = `  last response ${d.last_response_status ?? '-'}`;
  const next = d.next_attempt_at ? `  next attempt ${d.next_attempt_at}` : '';
  const waiting = d.waiting_reason ? `  waiting (${d.waiting_reason})` : '';
  const reason = d.failure_reason ? `  (${d.failure_reason})` : '';
  const resends = d.resend_count > 0 ? `  resent ${d.resend_count}x` : '';
  return `${d.id}  ${d.created_at}  ${d.type}  ${d.status}  attempts ${d.attempt_count}${last}${next}${waiting}${resends}${reason}`;
}

export function register(program: Command, ctx: CliContext): void {
  const delivery = program.command('delivery').description('the webhook delivery log');

  delivery
    .command('list')
    .description("an endpoint's deliveries, newest first")
    .requiredOption('--endpoint <id>', 'endpoint ID')
    .option('--status <status>', 'only pending, sending, succeeded, failed or cancelled')
    .option('--limit <n>', 'how many (1 to 1000, default 50)', parseWholeNumber)
    .option('--as <account>', 'act as this account (ID or email): any member')
    .option('--operator', 'act as the operator instead of an account')
    .hook('preAction', requireOneActor)
    .option('--json', 'print the result as JSON')
    .action((options: ActorOptions & { endpoint: string; status?: string; limit?: number; json?: boolean }) =>
      ctx.run(
        options,
        async (env) => {
          const { workspaceId } = await requireEndpointReader(env.sql, options.endpoint, await resolveActor(env.sql, options));
          return listEndpointDeliveries(managementDeps(env), {
            workspaceId,
            endpointId: options.endpoint,
            status: options.status ?? null,
            limit: options.limit,
          });
        },
        (list) => (list.length === 0 ? 'no deliveries' : list.map(line).join('\n')),
      ),
    );

  delivery
    .command('show <id>')
    .description('one delivery with every attempt: time, status code, error, duration')
    .option('--as <account>', 'act as this account (ID or email): any member')
    .option('--operator', 'act as the operator instead of an account')
    .hook('preAction', requireOneActor)
    .option('--json', 'print the result as JSON')
    .action((id: string, options: ActorOptions & { json?: boolean }) =>
      ctx.run(
        options,
        async (env) => {
          const { workspaceId } = await requireDeliveryReader(env.sql, id, await resolveActor(env.sql, options));
          return showDeliveryLogEntry(managementDeps(env), { workspaceId, deliveryId: id });
        },
        (d) =>
          [
            line(d),
            `  webhook-id ${d.webhook_id}`,
            ...d.attempts.map(
              (a) =>
                `  #${a.attempt}  ${a.attempted_at}  ${a.status_code ?? '-'}  ${a.duration_ms} ms` +
                `${a.error ? `  ${a.error}` : ''}`,
            ),
          ].join('\n'),
      ),
    );

  withActor(
    delivery
      .command('resend <id>')
      .description(`send a finished delivery once more (same webhook-id and body; up to ${MAX_RESENDS} times)`),
    'an owner or admin',
  )
    .option('--json', 'print the result as JSON')
    .action((id: string, options: ActorOptions & { json?: boolean }) =>
      ctx.run(
        options,
        async (env) =>
          resendDelivery(managementDeps(env), { deliveryId: id, actorId: await resolveActor(env.sql, options) }),
        (d) => `delivery ${d.id} queued for one more attempt (resend ${d.resend_count} of ${MAX_RESENDS})`,
      ),
    );

  delivery
    .command('resend-failed')
    .description(`resend an endpoint's failed deliveries created since a time, each within its own limit of ${MAX_RESENDS}`)
    .requiredOption('--endpoint <id>', 'endpoint ID')
    .requiredOption('--since <time>', 'ISO 8601 date-time, e.g. 2026-03-04T09:00:00Z')
    .option('--preview', 'only count what would be resent')
    .option('--as <account>', 'acting account (ID or email), an owner or admin; needed unless --preview')
    .option('--json', 'print the result as JSON')
    .action((options: { endpoint: string; since: string; preview?: boolean; as?: string; json?: boolean }) =>
      ctx.run(
        options,
        async (env) => {
          const since = new Date(options.since);
          if (Number.isNaN(since.getTime())) throw invalidInput(`--since must be an ISO 8601 date-time, got "${options.since}"`);
          const deps = managementDeps(env);
          const { workspace_id: workspaceId } = await showEndpoint(deps, { endpointId: options.endpoint });
          const input = { workspaceId, endpointId: options.endpoint, since };
          if (options.preview) return { preview: true as const, ...(await previewResendFailed(deps, input)) };
          if (!options.as) throw invalidInput('--as is required to resend (or use --preview to only count)');
          return { preview: false as const, ...(await resendFailed(deps, { ...input, actorId: await ctx.accountId(env.sql, options.as) })) };
        },
        (r) =>
          r.preview
            ? `${r.count} failed deliveries would be resent${r.skipped_limit > 0 ? `; ${r.skipped_limit} already resent 5 times are skipped` : ''}`
            : `${r.resent} failed deliveries queued for one more attempt${r.skipped_limit > 0 ? `; ${r.skipped_limit} already resent 5 times were skipped` : ''}`,
      ),
    );
}
