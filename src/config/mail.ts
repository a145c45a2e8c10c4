import { boolean, ConfigError, type Env } from './values.js';

/**
 * How mail leaves the service:
 * - `smtp`: sent through SMTP_URL by the worker (src/mail/).
 * - `local`: the embedded default (no DATABASE_URL, no SMTP_URL). Mails are kept in the database
 *   and shown by the development mailbox, so a person can finish every flow on a laptop.
 * - `off`: DATABASE_URL without SMTP_URL. Mails wait in the outbox (never dropped) until SMTP_URL
 *   is set; the start says so in one line.
 */
export const MAIL_MODES = ['smtp', 'local', 'off'] as const;
export type MailMode = (typeof MAIL_MODES)[number];

/** The sender of every mail unless MAIL_FROM says otherwise. */
export const DEFAULT_MAIL_FROM = 'Offerdesk <no-reply@offerdesk.localhost>';

export interface MailConfig {
  mode: MailMode;
  /** smtp:// or smtps:// with optional user:password@; absent outside `smtp` mode. */
  smtpUrl: string | undefined;
  /** The From header (MAIL_FROM): an address, or "Name <address>". */
  from: string;
  /**
   * SMTP_ALLOW_PLAINTEXT_AUTH: SMTP_URL's credentials may go to a server that offers no STARTTLS,
   * for a relay on this host or a private network. Off (the default, and when unset here), an
   * smtp:// server given credentials must take STARTTLS before AUTH, so a server without it, or a
   * man in the middle who strips it from the EHLO reply, never sees the password (README "Mail").
   */
  allowPlaintextAuth?: boolean;
  /**
   * The development mailbox (/console/mailbox) is served, to signed-out visitors too: only in
   * `local` mode and only while the server listens on a loopback address, since the sign-in link
   * it shows must be readable before signing in. Even then it answers only requests addressed to
   * a loopback name or the public URL's host (src/console/handlers/mailbox.ts), never one a
   * DNS-rebinding page sends under its own host name.
   */
  mailboxOpen: boolean;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', 'localhost']);

/** MAIL_FROM: "addr@host" or "Display Name <addr@host>", one line. */
const MAIL_FROM_FORM = /^(?:[^<>\r\n]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/;

/** The mail settings of `env`; `databaseUrl` and `host` decide the embedded default's mailbox. */
export function loadMailConfig(env: Env, databaseUrl: string | undefined, host: string): MailConfig {
  const smtpUrl = env.SMTP_URL || undefined;
  if (smtpUrl !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(smtpUrl);
    } catch {
      url = undefined;
    }
    if (!url || !/^smtps?:$/.test(url.protocol) || !url.hostname) {
      // The value may carry a password: it is not repeated in the message.
      throw new ConfigError('SMTP_URL must look like smtp://user:password@host:587 or smtps://host:465');
    }
  }
  const from = (env.MAIL_FROM || DEFAULT_MAIL_FROM).trim();
  if (!MAIL_FROM_FORM.test(from)) {
    throw new ConfigError(`MAIL_FROM must be an address or "Name <address>", got "${env.MAIL_FROM}"`);
  }
  const allowPlaintextAuth = boolean(env, 'SMTP_ALLOW_PLAINTEXT_AUTH', false);
  const mode: MailMode = smtpUrl ? 'smtp' : databaseUrl === undefined ? 'local' : 'off';
  return { mode, smtpUrl, from, allowPlaintextAuth, mailboxOpen: mode === 'local' && LOOPBACK_HOSTS.has(host) };
}
