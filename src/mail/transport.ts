import nodemailer from 'nodemailer';
import type { MailConfig } from '../config.js';
import { SECOND } from '../clock.js';

// What became of one send attempt: a closed set, the labels of offerdesk_mail_sent_total
// (docs/operations.md "Metrics"); one list, kept where the metrics are declared.
export { MAIL_OUTCOMES, type MailOutcome } from '../telemetry/metrics.js';

/** One mail as it goes to the SMTP server. */
export interface OutgoingMail {
  /** The Message-ID header, derived from the outbox row id: the same on every retry. */
  messageId: string;
  to: string;
  subject: string;
  text: string;
  html: string;
}

/**
 * The SMTP server's verdict; `reason` is its reply or the connection error, never the mail.
 * `unconfirmed`: the message went out to its final `.` and no reply came (a timeout, a lost
 * connection). The server may have accepted it, so it is not sent again: as mail systems do, a
 * possible loss, visible to operators, is preferred to a certain duplicate (RFC 5321 6.1).
 */
export type SendResult = { outcome: 'sent' } | { outcome: 'retry' | 'refused' | 'unconfirmed'; reason: string };

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
 * A 5xx answer to the recipient or the message refuses it for good. A failure without an answer
 * once the whole message was written (`messageWritten`: its final `.` went out) leaves it
 * unconfirmed. Everything else (4xx, a lost connection or a timeout before the end of the
 * message, a refused login, a 5xx to MAIL FROM, which is our settings' fault) is worth another try.
 */
export function classifySmtpError(thrown: unknown, messageWritten = false): SendResult {
  const error = (thrown ?? {}) as SmtpError;
  const reason = String(error.message ?? thrown).replace(/\s+/g, ' ').slice(0, MAX_REASON_CHARS);
  const code = error.responseCode ?? 0;
  if (messageWritten && code === 0) return { outcome: 'unconfirmed', reason: `no reply after the whole message was sent: ${reason}`.slice(0, MAX_REASON_CHARS) };
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
 * SMTP through nodemailer, one connection (and one nodemailer transport) per mail: mail is rare,
 * no pool goes stale, and what is learnt of a conversation belongs to that mail alone. Tests pass
 * shorter `limits`.
 *
 * Credentials in SMTP_URL only travel over TLS: an smtp:// server must take STARTTLS before AUTH
 * (smtps:// is TLS from the start), unless `allowPlaintextAuth` (SMTP_ALLOW_PLAINTEXT_AUTH) says
 * the relay is trusted without it.
 */
export function createSmtpTransport(
  config: Pick<MailConfig, 'smtpUrl' | 'from' | 'allowPlaintextAuth'>,
  limits: SmtpLimits = SMTP_LIMITS,
): MailTransport {
  if (!config.smtpUrl) throw new Error('createSmtpTransport needs SMTP_URL');
  const url = new URL(config.smtpUrl);
  const requireTLS = (url.username !== '' || url.password !== '') && config.allowPlaintextAuth !== true;
  const options = {
    url: config.smtpUrl,
    requireTLS,
    connectionTimeout: limits.connectionTimeoutMs,
    greetingTimeout: limits.greetingTimeoutMs,
    socketTimeout: limits.socketTimeoutMs,
    // Closing destroys the socket at once: a conversation given up on says nothing more.
    socketCloseTimeout: 0,
    disableFileAccess: true,
    disableUrlAccess: true,
  };
  return {
    async send(mail) {
      // Set once the SMTP connection has read the whole message, so its final `.` is on the
      // wire: from then on, a missing reply leaves the mail's fate unknown.
      let messageWritten = false;
      const transporter = nodemailer.createTransport(options);
      transporter.use('stream', (message, done) => {
        message.message.processFunc((input) => {
          input.once('end', () => {
            messageWritten = true;
          });
          return input;
        });
        done();
      });
      // At the deadline the conversation is cut off (nodemailer closes the connection it made for
      // this mail on the abort), before the outbox row is set back for a retry: a slow server
      // must not go on to receive this mail while its retry is sent again.
      const deadline = new AbortController();
      const timer = setTimeout(() => deadline.abort(), limits.sendDeadlineMs);
      try {
        await transporter.sendMail({
          from: config.from,
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          messageId: mail.messageId,
          signal: deadline.signal,
        });
        return { outcome: 'sent' };
      } catch (thrown) {
        if (deadline.signal.aborted) {
          return classifySmtpError(new Error(`no answer from the SMTP server within ${limits.sendDeadlineMs} ms`), messageWritten);
        }
        const result = classifySmtpError(thrown, messageWritten);
        if (requireTLS && result.outcome === 'retry' && isTlsRefusal(thrown)) {
          return { outcome: 'retry', reason: `${TLS_REQUIRED}: ${result.reason}`.slice(0, MAX_REASON_CHARS) };
        }
        return result;
      } finally {
        clearTimeout(timer);
        transporter.close();
      }
    },
    // Nothing outlives a mail: each send makes and closes its own connection.
    close() {},
  };
}

const TLS_REQUIRED = 'no TLS with the SMTP server, so the credentials of SMTP_URL were not sent (SMTP_ALLOW_PLAINTEXT_AUTH allows it for a trusted relay)';

/** STARTTLS refused, not offered or failed: nodemailer's ETLS, or its answer to STARTTLS/EHLO under requireTLS. */
function isTlsRefusal(thrown: unknown): boolean {
  const error = (thrown ?? {}) as SmtpError;
  return error.code === 'ETLS' || error.command === 'STARTTLS' || /STARTTLS/.test(error.message ?? '');
}
