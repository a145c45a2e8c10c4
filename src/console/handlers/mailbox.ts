import { listKeptMails, readKeptMail } from '../../mail/sql/listKeptMails.js';
import { sendJson } from '../../http/respond.js';
import type { ConsoleHandlerTable, ConsoleRequest } from '../context.js';
import { refuse } from '../errors.js';
import { addressedToOwnHost } from '../protection.js';
import { pathParam } from './paging.js';

/** Mails the development mailbox lists (newest first). */
export const MAILBOX_LIMIT = 100;

/**
 * The console's settings for the signed-out sign-in page, and the development mailbox of the
 * embedded default (console-api.yaml tags "Session" and "Mailbox"). The mailbox answers only when
 * config.mail.mailboxOpen (local mode on a loopback address, src/config/mail.ts) and the request
 * is addressed to a loopback name or the public URL's host (protection.ts addressedToOwnHost), so
 * a DNS-rebinding page, which reaches 127.0.0.1 under a host name of its own, cannot read it. There
 * it is open to signed-out visitors, because the sign-in link mail must be readable before signing
 * in; everywhere else it is 404, as if it did not exist, and the config says it is not served.
 */

function mailboxServed(request: ConsoleRequest): boolean {
  const { config } = request.deps;
  return config.mail.mailboxOpen && addressedToOwnHost(request.req, config.publicUrl);
}

function getConsoleConfig(request: ConsoleRequest): void {
  const { mail } = request.deps.config;
  sendJson(request.res, 200, { data: { mail: { mode: mail.mode, mailbox: mailboxServed(request) } } });
}

function requireMailbox(request: ConsoleRequest): void {
  if (!mailboxServed(request)) throw refuse.notFound();
}

const iso = (at: Date) => at.toISOString();

async function listMailbox(request: ConsoleRequest): Promise<void> {
  requireMailbox(request);
  const mails = await listKeptMails(request.deps.sql, { limit: MAILBOX_LIMIT });
  sendJson(request.res, 200, { data: mails.map((m) => ({ ...m, at: iso(m.at) })), next_cursor: null });
}

async function getMailboxMail(request: ConsoleRequest): Promise<void> {
  requireMailbox(request);
  const mail = await readKeptMail(request.deps.sql, { id: pathParam(request, 'mailId') });
  if (!mail) throw refuse.notFound();
  sendJson(request.res, 200, { data: { ...mail, at: iso(mail.at) } });
}

export const mailboxHandlers: ConsoleHandlerTable = { getConsoleConfig, listMailbox, getMailboxMail };
