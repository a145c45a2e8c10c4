import nodemailer from 'nodemailer';
import type { MailConfig } from '../config.js';
import { SECOND } from '../clock.js';

/** What became of one send attempt: a closed set (metrics label it; STYLE.md "Operations"). */
export const MAIL_OUTCOMES = ['sent', 'retry', 'refused'] as const;
export type MailOutcome = (typeof MAIL_OUTCOMES)[number];

/** One mail as it goes to the SMTP server. */
export interface OutgoingMail {
  /** The Message-ID header, derived from the outbox row id: the same on every retry. */
  messageId: string;
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** The SMTP server's verdict; `reason` is its reply or the connection error, never the mail. */
export type SendResult = { outcome: 'sent' } | { outcome: 'retry' | 'refused'; reason: string };

export interface MailTransport {
  send(mail: OutgoingMail): Promise<SendResult>;
  close(): void;
}

/**
 * Limits of one SMTP conversation, so a slow or dead server only delays mail: the connection,
 * the greeting, any silence on the socket, and the whole send.
 */
export const SMTP_CONNECTION_TIMEOUT_MS = 10 * SECOND;
export const SMTP_GREETING_TIMEOUT_MS = 10 * SECOND;
export const SMTP_SOCKET_TIMEOUT_MS = 20 * SECOND;
export const SMTP_SEND_DEADLINE_MS = 45 * SECOND;
/** Longest SMTP reply kept in mail_outbox.last_error and the log. */
const MAX_REASON_CHARS = 300;

/** SMTP commands whose 5xx answer refuses this mail or this address (not our server settings). */
const ADDRESS_COMMANDS = new Set(['RCPT TO', 'DATA']);

interface SmtpError {
  message?: string;
  code?: string;
  responseCode?: number;
  command?: string;
}

/**
 * A 5xx answer to the recipient or the message refuses it for good; everything else (4xx, a lost
 * connection, a timeout, a refused login, a 5xx to MAIL FROM, which is our settings' fault) is
 * worth another try.
 */
export function classifySmtpError(thrown: unknown): SendResult {
  const error = (thrown ?? {}) as SmtpError;
  const reason = String(error.message ?? thrown).replace(/\s+/g, ' ').slice(0, MAX_REASON_CHARS);
  const code = error.responseCode ?? 0;
  if (code >= 500 && code < 600 && ADDRESS_COMMANDS.has(error.command ?? '')) return { outcome: 'refused', reason };
  return { outcome: 'retry', reason };
}

/** The domain of the From address, for Message-IDs: `<row id@domain>`. */
export function messageIdDomain(from: string): string {
  const address = /<([^>]+)>/.exec(from)?.[1] ?? from;
  return address.slice(address.lastIndexOf('@') + 1).trim() || 'offerdesk.localhost';
}

export interface SmtpLimits {
  connectionTimeoutMs: number;
  greetingTimeoutMs: number;
  socketTimeoutMs: number;
  sendDeadlineMs: number;
}

export const SMTP_LIMITS: SmtpLimits = {
  connectionTimeoutMs: SMTP_CONNECTION_TIMEOUT_MS,
  greetingTimeoutMs: SMTP_GREETING_TIMEOUT_MS,
  socketTimeoutMs: SMTP_SOCKET_TIMEOUT_MS,
  sendDeadlineMs: SMTP_SEND_DEADLINE_MS,
};

/**
 * SMTP through nodemailer, one connection per mail (mail is rare; no pool to go stale). Tests
 * pass shorter `limits`.
 */
export function createSmtpTransport(config: Pick<MailConfig, 'smtpUrl' | 'from'>, limits: SmtpLimits = SMTP_LIMITS): MailTransport {
  if (!config.smtpUrl) throw new Error('createSmtpTransport needs SMTP_URL');
  const transporter = nodemailer.createTransport({
    url: config.smtpUrl,
    connectionTimeout: limits.connectionTimeoutMs,
    greetingTimeout: limits.greetingTimeoutMs,
    socketTimeout: limits.socketTimeoutMs,
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  return {
    async send(mail) {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer from the SMTP server within ${limits.sendDeadlineMs} ms`)), limits.sendDeadlineMs);
      });
      try {
        await Promise.race([
          transporter.sendMail({
            from: config.from,
            to: mail.to,
            subject: mail.subject,
            text: mail.text,
            html: mail.html,
            messageId: mail.messageId,
          }),
          deadline,
        ]);
        return { outcome: 'sent' };
      } catch (thrown) {
        return classifySmtpError(thrown);
      } finally {
        clearTimeout(timer);
      }
    },
    close() {
      transporter.close();
    },
  };
}
