import { afterAll, beforeAll } from 'vitest';
import { DEFAULT_MAIL_FROM } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startMailLoop, type RunningMailLoop } from '../../src/mail/loop.js';
import { startSmtpReceiver, type SmtpReceiver } from '../mail/smtp-receiver.js';
import { untilValue } from '../support/until.js';
import type { ConsoleWorld } from './console-fixture.js';

/**
 * The browser tests' inbox: the worker's mail loop (src/mail/loop.ts) sends the outbox of the
 * console world's database through SMTP to a real SMTP server on a loopback socket (npm
 * smtp-server, read with mailparser), as a person's mail provider would receive it.
 */

export interface Mail {
  to: string[];
  subject: string;
  text: string;
  html: string;
  /** The console link of the mail (`...#token=...`). */
  link: string;
}

/** How long a mail may take from the transaction that wrote it to the SMTP server. */
const MAIL_ARRIVAL_TIMEOUT_MS = 15_000;

export interface Mailbox {
  /** The next mail to `address` not yet taken by an earlier call. */
  next(address: string): Promise<Mail>;
  /** Mails received so far. */
  count(): number;
}

/** Call after useConsoleWorld, in the same describe: starts after it, stops before it. */
export function useMailbox(world: ConsoleWorld): Mailbox {
  let smtp: SmtpReceiver;
  let loop: RunningMailLoop;
  const taken = new Set<number>();

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    loop = await startMailLoop({
      sql: world.db.sql,
      clock: world.clock,
      logger: createLogger(process.env.OFFERDESK_TEST_LOG ?? 'silent'),
      mail: { mode: 'smtp', smtpUrl: smtp.url, from: DEFAULT_MAIL_FROM, mailboxOpen: false },
      publicUrl: world.origin,
      pollIntervalMs: 100,
    });
  });
  afterAll(async () => {
    await loop?.stop();
    await smtp?.close();
  });

  return {
    count: () => smtp.received.length,
    async next(address) {
      const index = await untilValue(
        () => {
          loop.nudge();
          const found = smtp.received.findIndex((m, i) => !taken.has(i) && m.envelopeTo.includes(address));
          return found >= 0 ? found : undefined;
        },
        MAIL_ARRIVAL_TIMEOUT_MS,
        `a mail to ${address}`,
        50,
      );
      taken.add(index);
      const { parsed, envelopeTo } = smtp.received[index]!;
      const text = parsed.text ?? '';
      const link = /(https?:\/\/\S+#token=[A-Za-z0-9_-]+)/.exec(text)?.[1];
      if (!link) throw new Error(`the mail "${parsed.subject}" to ${address} has no console link`);
      return { to: envelopeTo, subject: parsed.subject ?? '', text, html: typeof parsed.html === 'string' ? parsed.html : '', link };
    },
  };
}
