import { oneLine } from '../../domain/names.js';
import { escapeHtml, publicLink } from '../../mail/links.js';
import type { MailDraft } from '../../mail/outbox.js';
import type { HealthNotice } from './health.js';
import { FAILURES_IN_A_ROW_TO_PAUSE, HEALTH_NOTICE_AT_STREAK } from './policy.js';

export interface NoticeFacts {
  notice: HealthNotice;
  workspaceId: string;
  workspaceName: string;
  endpointId: string;
  url: string;
  failingSince: Date | null;
  lastErrors: { attempted_at: Date; status_code: number | null; error: string | null }[];
  /** Deliveries the pause cancelled (endpoint_paused). */
  cancelled?: number;
  /** The success that ended the failures (endpoint_recovered). */
  recoveredAt?: Date | null;
  publicUrl: string;
}

const utc = (at: Date) => `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

function headline(f: NoticeFacts): { subject: string; lines: string[] } {
  const since = f.failingSince ? ` since ${utc(f.failingSince)}` : '';
  switch (f.notice) {
    case 'endpoint_failing':
      return {
        subject: `Webhook endpoint failing: ${f.url}`,
        lines: [
          `Deliveries to ${f.url} have been failing${since}: no attempt succeeded for an hour while several failed.`,
          `Failed deliveries are retried on their schedule; after ${FAILURES_IN_A_ROW_TO_PAUSE} deliveries in a row fail finally, the endpoint is paused.`,
        ],
      };
    case 'endpoint_failures_3':
      return {
        subject: `Webhook endpoint close to pause: ${f.url}`,
        lines: [
          `${HEALTH_NOTICE_AT_STREAK} deliveries in a row to ${f.url} failed finally (failing${since}).`,
          `After ${FAILURES_IN_A_ROW_TO_PAUSE} in a row the endpoint is paused and its open deliveries are cancelled.`,
        ],
      };
    case 'endpoint_paused':
      return {
        subject: `Webhook endpoint paused: ${f.url}`,
        lines: [
          `${f.url} was paused after ${FAILURES_IN_A_ROW_TO_PAUSE} deliveries in a row failed finally (failing${since}).`,
          `${f.cancelled ?? 0} open ${f.cancelled === 1 ? 'delivery was' : 'deliveries were'} cancelled. Events that occur while it is paused are not delivered, also not after resuming.`,
          'Fix the receiver, then resume the endpoint in the console.',
        ],
      };
    case 'endpoint_recovered':
      return {
        subject: `Webhook endpoint recovered: ${f.url}`,
        lines: [`Deliveries to ${f.url} succeed again${f.recoveredAt ? ` (since ${utc(f.recoveredAt)})` : ''}.`],
      };
  }
}

/**
 * The mail of an endpoint health notice to one owner or admin: what happened, the last errors,
 * and links to the endpoint (where it is resumed) and to the account page (where the notices
 * are switched off). No secret and no token: URLs, times, status codes and error texts.
 */
export function noticeMail(f: NoticeFacts, to: string): MailDraft {
  const { subject, lines } = headline(f);
  const endpointLink = publicLink(f.publicUrl, `/console/w/${f.workspaceId}/endpoints`) + `#endpoint-${f.endpointId}`;
  const accountLink = publicLink(f.publicUrl, '/console/account');
  const errors =
    f.notice === 'endpoint_recovered'
      ? []
      : f.lastErrors.map((e) => `${utc(e.attempted_at)}: ${e.status_code !== null ? `HTTP ${e.status_code}` : 'no answer'}${e.error ? ` (${oneLine(e.error)})` : ''}`);
  const action = f.notice === 'endpoint_paused' ? 'Resume the endpoint' : 'See the endpoint';
  // A workspace name stored before names were held to one line could forge a line of the text part.
  const footer = `You get this mail as an owner or admin of the workspace "${oneLine(f.workspaceName)}". Switch these notices off on your account page: ${accountLink}`;
  const text = [
    ...lines,
    '',
    ...(errors.length > 0 ? ['Last errors:', ...errors.map((e) => `- ${e}`), ''] : []),
    `${action}: ${endpointLink}`,
    '',
    footer,
    '',
  ].join('\n');
  const html = [
    ...lines.map((l) => `<p>${escapeHtml(l)}</p>`),
    errors.length > 0 ? `<p>Last errors:</p><ul>${errors.map((e) => `<li>${escapeHtml(e)}</li>`).join('')}</ul>` : '',
    `<p><a href="${escapeHtml(endpointLink)}">${action}</a></p>`,
    `<p style="color:#666">You get this mail as an owner or admin of the workspace &quot;${escapeHtml(f.workspaceName)}&quot;. ` +
      `<a href="${escapeHtml(accountLink)}">Switch these notices off</a> on your account page.</p>`,
  ].join('\n');
  return { kind: f.notice, to, subject: subject.slice(0, 998), text, html, workspaceId: f.workspaceId, endpointId: f.endpointId };
}
