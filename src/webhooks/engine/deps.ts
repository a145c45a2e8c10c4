import type { Clock } from '../../clock.js';
import type { Sql } from '../../db/connect.js';
import type { Logger } from '../../log.js';
import type { WebhookSender } from '../transport/sender.js';

/** Everything the engine's steps use; tests pass a ManualClock and a fake sender. */
export interface EngineDeps {
  sql: Sql;
  clock: Clock;
  sender: WebhookSender;
  /** Opens endpoint secrets sealed at rest (secrets.ts): the current master key. */
  masterKey: Buffer;
  /** Keys of a rotation that still open secrets sealed before it (OFFERDESK_MASTER_KEYS_PREVIOUS). */
  previousMasterKeys?: Buffer[];
  logger: Logger;
  settings: EngineSettings;
  /**
   * The public base address (config.publicUrl) that links in endpoint health mails start with;
   * absent: the embedded default's, http://localhost:8080.
   */
  publicUrl?: string;
  /** The liveness id this worker writes on its claims (liveness.ts); absent: none. */
  workerId?: () => number | null;
}

export interface EngineSettings {
  /** docs/webhook-delivery.md "Limits": 60 by default; benchmarks lift it. */
  startsPerMinutePerWorkspace: number;
  /** Attempts one worker runs at once. */
  concurrency: number;
  /** How long a claimed attempt belongs to its worker. */
  leaseMs: number;
  /**
   * Honour the loopback mappings `offerdesk listen` recorded (config webhooks.devListen). Off
   * unless set: with it off, a listen endpoint's internal name is refused like any other.
   */
  devListen?: boolean;
}
