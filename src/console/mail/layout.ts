import { escapeHtml } from '../../mail/links.js';

/**
 * The frame every console mail shares: plain text (what many mail readers show, and what tests
 * read) and the same words as simple HTML, with every value from a person (names, workspace
 * names, addresses) escaped. The link is the mail's one button and is also written out in full.
 */


export interface MailBody {
  /** Paragraphs before the link. */
  lead: string[];
  /** The button's words. */
  action: string;
  url: string;
  /** Paragraphs after the link (validity, what to do when it was not you). */
  after: string[];
}

export function renderText(body: MailBody): string {
  return [...body.lead, `${body.action}:\n${body.url}`, ...body.after, '-- \nOfferdesk'].join('\n\n') + '\n';
}

export function renderHtml(body: MailBody): string {
  const p = (text: string) => `<p style="margin:0 0 16px">${escapeHtml(text)}</p>`;
  const href = escapeHtml(body.url);
  return [
    '<!doctype html>',
    '<html><body style="font-family:system-ui,sans-serif;font-size:15px;line-height:1.5;color:#1f2933;max-width:560px">',
    ...body.lead.map(p),
    `<p style="margin:24px 0"><a href="${href}" style="background:#2457c5;color:#fff;padding:10px 18px;border-radius:6px;text-decoration:none">${escapeHtml(body.action)}</a></p>`,
    `<p style="margin:0 0 16px;font-size:13px;color:#52606d">Or open this address: <a href="${href}">${href}</a></p>`,
    ...body.after.map(p),
    '<p style="margin:24px 0 0;font-size:13px;color:#52606d">Offerdesk</p>',
    '</body></html>',
  ].join('\n');
}
