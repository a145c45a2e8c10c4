import type { DeliveryStatus } from '../../../src/webhooks/delivery.js';
import {
  listDeliveryLogPage,
  listEndpointDeliveries,
  showDeliveryLogEntry,
  type DeliveryLogDetail,
  type DeliveryLogView,
  type LogDeps,
  type LogQuery,
} from '../../../src/webhooks/management/delivery-log.js';
import type { EngineFixture } from './helpers.js';

/** The log read with the worker settings the fixture's engine runs with. */
export function logDeps(f: EngineFixture): LogDeps {
  return {
    sql: f.sql,
    clock: f.clock,
    config: {
      ...f.manage.config,
      workerConcurrency: f.deps.settings.concurrency,
      startsPerMinutePerWorkspace: f.deps.settings.startsPerMinutePerWorkspace,
    },
  };
}

/** Every page of a filtered log, `limit` rows at a time, following the keyset position. */
export async function walkLog(f: EngineFixture, query: LogQuery, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let after: { createdAt: string; id: string } | null = null;
  for (let guard = 0; guard < 10_000; guard++) {
    const { rows } = await listDeliveryLogPage(logDeps(f), { ...query, after, limit });
    ids.push(...rows.map((row) => row.id));
    if (rows.length < limit) return ids;
    after = { createdAt: rows.at(-1)!.key, id: rows.at(-1)!.id };
  }
  throw new Error('walk did not end');
}

/**
 * One delivery as the delivery log shows it, in its own workspace. A delivery no longer stored is
 * looked up in no workspace, so the log answers not found, as it does for an unknown id.
 */
export async function shownDelivery(f: EngineFixture, deliveryId: string): Promise<DeliveryLogDetail> {
  const [row] = await f.sql<{ workspace_id: string }[]>`select workspace_id from webhook_deliveries where id = ${deliveryId}::uuid`;
  return showDeliveryLogEntry(logDeps(f), { workspaceId: row?.workspace_id ?? NO_WORKSPACE, deliveryId });
}

/** An endpoint's deliveries as `offerdesk delivery list` reads them, newest first. */
export async function endpointDeliveries(f: EngineFixture, endpointId: string, status?: DeliveryStatus): Promise<DeliveryLogView[]> {
  const [row] = await f.sql<{ workspace_id: string }[]>`select workspace_id from webhook_endpoints where id = ${endpointId}::uuid`;
  return listEndpointDeliveries(logDeps(f), { workspaceId: row!.workspace_id, endpointId, status });
}

const NO_WORKSPACE = '00000000-0000-4000-8000-000000000000';
