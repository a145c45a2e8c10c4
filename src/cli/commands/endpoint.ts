import type { Command } from 'commander';
import type { CliContext, CommandEnv } from '../context.js';
import { checkMasterKeys } from '../../sealing/key-check.js';
import { loadMasterKeys } from '../../sealing/master-keys.js';
import {
  addEndpoint,
  listEndpoints,
  managementDeps,
  removeEndpoint,
  resumeEndpoint,
  rotateSecret,
  showEndpoint,
  testEndpoint,
  type EndpointView,
  type ManagementDeps,
} from '../../webhooks/management/endpoints.js';
import { pauseEndpoint, updateEndpoint } from '../../webhooks/management/endpoint-update.js';
import { requireEndpointReader, requireWorkspaceReader } from '../../webhooks/management/readers.js';
import { requireOneActor, resolveActor, withActor, type ActorOptions as ActingOptions } from '../actor.js';

/**
 * Deps for the commands that seal a new secret: a key that cannot open the stored secrets (see
 * key-check.ts) must not seal new ones the workers could not open either.
 */
async function sealingDeps(env: CommandEnv): Promise<ManagementDeps> {
  const keys = loadMasterKeys(env.config);
  await checkMasterKeys(env.sql, keys);
  return { ...managementDeps(env), masterKey: keys.current };
}

/** `offerdesk endpoint ...`: webhook endpoints (console-api.yaml "Webhook endpoints"). */

interface JsonOption {
  json?: boolean;
}
interface ActorOptions extends JsonOption, ActingOptions {}
const MANAGERS = 'an owner or admin';

function describeEndpoint(e: EndpointView): string {
  return [
    `${e.id}  ${e.state}  ${e.url}`,
    `  events: ${e.events.join(', ')}`,
    `  failure streak: ${e.failure_streak}${e.paused_at ? `  (paused at ${e.paused_at})` : ''}`,
  ].join('\n');
}

export function register(program: Command, ctx: CliContext): void {
  const endpoint = program.command('endpoint').description('manage webhook endpoints (owners and admins)');

  withActor(
    endpoint
      .command('add')
      .description('add an endpoint; prints its signing secret, shown this once only')
      .requiredOption('--workspace <id>', 'workspace ID')
      .requiredOption('--url <url>', 'https address of the receiver')
      .requiredOption('--events <types>', 'comma-separated webhook types, e.g. offer.sent,offer.accepted'),
    MANAGERS,
  )
    .option('--json', 'print the result as one JSON object')
    .action((options: ActorOptions & { workspace: string; url: string; events: string }) =>
      ctx.run(
        options,
        async (env) =>
          addEndpoint(await sealingDeps(env), {
            workspaceId: options.workspace,
            url: options.url,
            events: options.events.split(','),
            actorId: await resolveActor(env.sql, options),
          }),
        (r) => `endpoint ${r.id} added\nsigning secret (shown once, store it now): ${r.secret}`,
      ),
    );

  endpoint
    .command('list')
    .description("list a workspace's endpoints with state, events and failure streak")
    .requiredOption('--workspace <id>', 'workspace ID')
    .option('--as <account>', 'act as this account (ID or email): any member')
    .option('--operator', 'act as the operator instead of an account')
    .hook('preAction', requireOneActor)
    .option('--json', 'print the result as JSON')
    .action((options: ActorOptions & { workspace: string }) =>
      ctx.run(
        options,
        async (env) => {
          await requireWorkspaceReader(env.sql, options.workspace, await resolveActor(env.sql, options));
          return listEndpoints(managementDeps(env), { workspaceId: options.workspace });
        },
        (list) => (list.length === 0 ? 'no endpoints' : list.map(describeEndpoint).join('\n')),
      ),
    );

  endpoint
    .command('show <id>')
    .description('show one endpoint')
    .option('--as <account>', 'act as this account (ID or email): any member')
    .option('--operator', 'act as the operator instead of an account')
    .hook('preAction', requireOneActor)
    .option('--json', 'print the result as JSON')
    .action((id: string, options: ActorOptions) =>
      ctx.run(
        options,
        async (env) => {
          await requireEndpointReader(env.sql, id, await resolveActor(env.sql, options));
          return showEndpoint(managementDeps(env), { endpointId: id });
        },
        describeEndpoint,
      ),
    );

  withActor(
    endpoint
      .command('update <id>')
      .description('change the address and/or the event types (a new address is checked like a new endpoint)')
      .option('--url <url>', 'new https address of the receiver')
      .option('--events <types>', 'new comma-separated webhook types, e.g. offer.sent,offer.accepted'),
    MANAGERS,
  )
    .option('--json', 'print the result as JSON')
    .action((id: string, options: ActorOptions & { url?: string; events?: string }) =>
      ctx.run(
        options,
        async (env) =>
          updateEndpoint(managementDeps(env), {
            endpointId: id,
            url: options.url,
            events: options.events?.split(','),
            actorId: await resolveActor(env.sql, options),
          }),
        describeEndpoint,
      ),
    );

  /** `endpoint <verb> <id>` by an owner or admin: one management call on one endpoint. */
  const onOneEndpoint = <R extends object>(
    verb: string,
    description: string,
    deps: (env: CommandEnv) => ManagementDeps | Promise<ManagementDeps>,
    act: (deps: ManagementDeps, input: { endpointId: string; actorId: string | null }) => Promise<R>,
    describe: (result: R) => string,
  ) =>
    withActor(endpoint.command(`${verb} <id>`).description(description), MANAGERS)
      .option('--json', 'print the result as JSON')
      .action((id: string, options: ActorOptions) =>
        ctx.run(
          options,
          async (env) => act(await deps(env), { endpointId: id, actorId: await resolveActor(env.sql, options) }),
          describe,
        ),
      );

  onOneEndpoint(
    'test',
    'send a ping event to the endpoint (10 per 10 minutes)',
    managementDeps,
    testEndpoint,
    (r) => `ping ${r.webhook_id} queued as delivery ${r.delivery_id} (${r.status})`,
  );
  onOneEndpoint(
    'rotate-secret',
    'replace the signing secret at once; prints the new one, shown this once only',
    sealingDeps,
    rotateSecret,
    (r) => `new signing secret (shown once; the old one no longer signs): ${r.secret}`,
  );
  onOneEndpoint(
    'pause',
    'pause an endpoint: open deliveries are cancelled, events until "resume" are not delivered',
    managementDeps,
    pauseEndpoint,
    (r) => `${describeEndpoint(r)}\n  ${r.cancelled_deliveries} open deliveries cancelled`,
  );
  onOneEndpoint(
    'resume',
    'resume a paused endpoint (events of the paused time are not delivered)',
    managementDeps,
    resumeEndpoint,
    describeEndpoint,
  );
  onOneEndpoint(
    'remove',
    'remove an endpoint; its open deliveries are cancelled',
    managementDeps,
    removeEndpoint,
    (r) =>
      `endpoint ${r.id} removed; ${r.cancelled_deliveries} open deliveries cancelled` +
      (r.dropped_events > 0 ? `; ${r.dropped_events} waiting events dropped (it was the last endpoint)` : ''),
  );
}
