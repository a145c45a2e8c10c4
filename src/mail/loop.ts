import type { Clock } from '../clock.js';
import type { MailConfig } from '../config.js';
import type { Sql } from '../db/connect.js';
import { coerceError, type Logger } from '../log.js';
import { keepMailsLocally, sendDueMails, type MailDispatchDeps } from './dispatch.js';
import { publicLink } from './links.js';
import { MAIL_BATCH_SIZE, MAIL_POLL_INTERVAL_MS } from './policy.js';
import { createSmtpTransport, messageIdDomain, type MailOutcome, type MailTransport } from './transport.js';

/** Channel notified by a trigger whenever a transaction commits a mail (migration 0015). */
export const MAIL_OUTBOX_CHANNEL = 'offerdesk_mail_outbox';

/** Where the development mailbox of the embedded default is read. */
export const MAILBOX_PATH = '/console/mailbox';

export interface MailLoopOptions {
  sql: Sql;
  clock: Clock;
  logger: Logger;
  mail: MailConfig;
  publicUrl: string;
  /** Tests inject a transport; otherwise one is made from SMTP_URL. */
  transport?: MailTransport;
  recordMailOutcome?: (outcome: MailOutcome) => void;
  /** Poll period of an idle loop (wall clock); tests shorten it. */
  pollIntervalMs?: number;
}

export interface RunningMailLoop {
  /** Looks for due mails now (tests, after moving the clock). */
  nudge(): void;
  /** Stops looking; a send in flight finishes and records its outcome first. */
  stop(): Promise<void>;
}

/**
 * The mail part of the worker: its own loop and timer beside the webhook deliveries, so a slow
 * or dead SMTP server (each send bounded by transport.ts's timeouts) never holds up a delivery
 * round or a request. In `off` mode it does nothing: mails wait in the outbox for SMTP_URL.
 */
export async function startMailLoop(options: MailLoopOptions): Promise<RunningMailLoop> {
  const { sql, clock, logger, mail } = options;
  if (mail.mode === 'off') return { nudge() {}, async stop() {} };
  const transport = mail.mode === 'smtp' ? (options.transport ?? createSmtpTransport(mail)) : null;
  const deps: MailDispatchDeps | null = transport
    ? { sql, clock, logger, transport, messageIdDomain: messageIdDomain(mail.from), recordMailOutcome: options.recordMailOutcome }
    : null;
  const mailboxUrl = publicLink(options.publicUrl, MAILBOX_PATH);
  const pollMs = options.pollIntervalMs ?? MAIL_POLL_INTERVAL_MS;

  let stopping = false;
  let nudged = false;
  let wake: (() => void) | null = null;
  const nudge = () => {
    nudged = true;
    const w = wake;
    wake = null;
    w?.();
  };
  let unlisten: (() => Promise<void>) | null = null;
  try {
    const listening = await sql.listen(MAIL_OUTBOX_CHANNEL, nudge);
    unlisten = () => listening.unlisten();
  } catch (thrown) {
    logger.warn({ err: coerceError(thrown) }, 'cannot listen for mail notifications; polling only');
  }

  /** One round; true when a full batch was sent, so more may be due at once. */
  async function round(): Promise<boolean> {
    if (!deps) {
      await keepMailsLocally({ sql, clock, logger }, mailboxUrl);
      return false;
    }
    return (await sendDueMails(deps)).length === MAIL_BATCH_SIZE;
  }

  const loop = (async () => {
    while (!stopping) {
      nudged = false;
      let more = false;
      try {
        more = await round();
      } catch (thrown) {
        logger.error({ err: coerceError(thrown) }, 'mail round failed; trying again');
      }
      if (stopping) break;
      if (more || nudged) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    if (unlisten) await unlisten().catch(() => {});
    if (!options.transport) transport?.close();
  })();

  return {
    nudge,
    async stop() {
      stopping = true;
      nudge();
      await loop;
    },
  };
}
