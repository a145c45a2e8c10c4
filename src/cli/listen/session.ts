import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { Sql } from '../../db/connect.js';
import { resolveAccount } from '../../domain/accounts.js';
import { acceptsConnections } from '../../port-probe.js';
import { devListenUrl } from '../../webhooks/management/dev-listen-rules.js';
import { updateEndpoint } from '../../webhooks/management/endpoint-update.js';
import { addEndpoint, managementDeps, removeEndpoint, resumeEndpoint } from '../../webhooks/management/endpoints.js';
import { openSecret } from '../../sealing/secrets.js';
import { loadMasterKeys } from '../../sealing/master-keys.js';
import { findDevListenEndpoints, insertDevListen, type DevListenTarget } from '../../webhooks/sql/devListen.js';
import { CliError } from '../context.js';
import { LISTEN_DIR } from './certificates.js';

/**
 * The database side of `offerdesk listen`: which workspace and account, and the endpoint that
 * maps to this run's receiver, registered through the domain rules (addEndpoint) or taken over
 * from an earlier run that did not get to remove its own (killed, machine slept).
 */

export interface ListenTarget {
  workspace: { id: string; name: string };
  actor: { id: string; email: string };
}

/** `--workspace` or the only workspace; `--as` or the workspace's only owner. */
export async function chooseTarget(sql: Sql, options: { workspace?: string; as?: string }): Promise<ListenTarget> {
  let workspace: { id: string; name: string } | undefined;
  if (options.workspace) {
    const found = await sql<{ id: string; name: string }[]>`
      select id, name from workspaces where id::text = ${options.workspace} or lower(name) = lower(${options.workspace})
      order by created_at limit 2`;
    if (found.length === 0) throw new CliError(`workspace ${options.workspace} not found (see: offerdesk workspace list)`);
    if (found.length > 1) throw new CliError(`several workspaces are named ${options.workspace}: pass the ID (see: offerdesk workspace list)`);
    workspace = found[0]!;
  } else {
    const all = await sql<{ id: string; name: string }[]>`select id, name from workspaces order by created_at limit 2`;
    if (all.length === 0) throw new CliError('there is no workspace yet; start the server once (npm start) or create one');
    if (all.length > 1) throw new CliError('there are several workspaces: pass --workspace ID (see: offerdesk workspace list)');
    workspace = all[0]!;
  }
  if (options.as) {
    const account = await resolveAccount(sql, options.as);
    return { workspace, actor: { id: account.id, email: account.email } };
  }
  const owners = await sql<{ id: string; email: string }[]>`
    select a.id, a.email from memberships m join accounts a on a.id = m.account_id
     where m.workspace_id = ${workspace.id}::uuid and m.role = 'owner'
     order by m.created_at limit 2`;
  if (owners.length !== 1) {
    throw new CliError(`workspace ${workspace.id} has ${owners.length === 0 ? 'no' : 'several'} owners: pass --as ACCOUNT (an owner or admin)`);
  }
  return { workspace, actor: owners[0]! };
}

export interface Registration {
  endpointId: string;
  secret: string;
  reused: boolean;
}

/** Connection attempts to an earlier run's port give up after this: it is on this machine. */
const PORT_PROBE_MS = 300;

/**
 * The secret of the last listen run in this data directory (mode 0600, development only, like
 * the generated master key beside it): a receiver started with it keeps verifying across runs.
 */
const SECRET_FILE = 'secret';

function rememberedSecret(dataDir: string): string | undefined {
  try {
    const secret = readFileSync(join(dataDir, LISTEN_DIR, SECRET_FILE), 'utf8').trim();
    // Anything else (edited by hand, cut short) is ignored: the endpoint gets a fresh secret.
    return /^whsec_[A-Za-z0-9+/]{43}=$/.test(secret) ? secret : undefined;
  } catch {
    return undefined;
  }
}

function rememberSecret(dataDir: string, secret: string): void {
  writeFileSync(join(dataDir, LISTEN_DIR, SECRET_FILE), `${secret}\n`, { mode: 0o600 });
}

export async function register(
  env: { sql: Sql; clock: Clock; config: Config },
  input: { target: ListenTarget; events: string[]; devListen: DevListenTarget },
): Promise<Registration> {
  const registration = await registerOnce(env, input);
  rememberSecret(env.config.dataDir, registration.secret);
  return registration;
}

async function registerOnce(
  env: { sql: Sql; clock: Clock; config: Config },
  input: { target: ListenTarget; events: string[]; devListen: DevListenTarget },
): Promise<Registration> {
  const deps = managementDeps(env, { masterKey: true });
  const keys = loadMasterKeys(env.config);
  const { workspace, actor } = input.target;
  for (const earlier of await findDevListenEndpoints(env.sql, { workspaceId: workspace.id, accountId: actor.id })) {
    // A port that still answers belongs to another listen running now: leave its endpoint alone.
    if (await acceptsConnections(earlier.port, PORT_PROBE_MS)) continue;
    let secret: string;
    try {
      secret = openSecret(keys, earlier.endpoint_id, earlier.secret_sealed);
    } catch {
      continue; // sealed with another master key: not ours to reuse
    }
    await updateEndpoint(deps, { endpointId: earlier.endpoint_id, actorId: actor.id, events: input.events });
    await insertDevListen(env.sql, { endpointId: earlier.endpoint_id, target: input.devListen, now: env.clock.now() });
    if (earlier.state === 'paused') await resumeEndpoint(deps, { endpointId: earlier.endpoint_id, actorId: actor.id });
    return { endpointId: earlier.endpoint_id, secret, reused: true };
  }
  const added = await addEndpoint(deps, {
    workspaceId: workspace.id,
    url: devListenUrl(),
    events: input.events,
    actorId: actor.id,
    devListen: input.devListen,
    devListenSecret: rememberedSecret(env.config.dataDir),
  });
  return { endpointId: added.id, secret: added.secret, reused: false };
}

export async function unregister(env: { sql: Sql; clock: Clock; config: Config }, endpointId: string, actorId: string): Promise<void> {
  await removeEndpoint(managementDeps(env), { endpointId, actorId });
}

