import type { Clock } from '../../clock.js';
import type { Config, WebhookConfig } from '../../config.js';
import type { Sql } from '../../db/connect.js';
import type { Resolver } from '../transport/address-rules.js';
import { loadMasterKeys } from '../../sealing/master-keys.js';

/**
 * What endpoint management and the delivery log need (console-api.yaml "Webhook endpoints"): its
 * own file, so endpoints.ts, delivery-log.ts, resend.ts and endpoint-address.ts share it without importing
 * each other.
 */
export interface ManagementDeps {
  sql: Sql;
  clock: Clock;
  config: WebhookConfig;
  /** The current master key: new secrets are sealed with it only. */
  masterKey: Buffer;
  /** Tests pass a fake resolver; otherwise the system's. */
  resolver?: Resolver;
}

/**
 * Management deps for one CLI run. Only commands that seal a secret (add, rotate-secret) read the
 * master key, so listing never creates a key file as a side effect.
 */
export function managementDeps(
  env: { sql: Sql; clock: Clock; config: Config },
  options: { masterKey?: boolean } = {},
): ManagementDeps {
  return {
    sql: env.sql,
    clock: env.clock,
    config: env.config.webhooks,
    masterKey: options.masterKey ? loadMasterKeys(env.config).current : Buffer.alloc(0),
  };
}

