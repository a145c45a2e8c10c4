/**
 * Absolute links for mails, built from the public base address (config.publicUrl: OFFERDESK_PUBLIC_URL,
 * by default the console's own address, http://localhost:<port>), so a link in a mail opens the
 * console wherever the mail is read. `path` starts with '/'; `query` values are encoded here.
 */
export function publicLink(publicUrl: string, path: string, query: Record<string, string> = {}): string {
  if (!path.startsWith('/')) throw new Error('publicLink: path must start with "/"');
  const url = new URL(path, publicUrl.replace(/\/+$/, '') + '/');
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  return url.toString();
}

/** Escapes text for the HTML body of a mail (names, URLs and error texts come from users). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
