/** openapi.yaml "Limits": "Query string length 1024 characters including `?`". */
export const MAX_QUERY_LENGTH = 1024;

/** The raw query string including its leading `?`, or '' when the URL has none. */
export function rawQuery(originalUrl: string): string {
  const at = originalUrl.indexOf('?');
  return at === -1 ? '' : originalUrl.slice(at);
}

/**
 * openapi.yaml "Pagination": "Unknown query parameters are ignored. A parameter sent twice
 * uses its first value." Only the operation's own parameters are kept. `limit` becomes a number
 * only when it is one to four digits (openapi.yaml "Pagination": digits only, at most four); anything else
 * stays a string and fails the schema's `type: integer`, giving 400 with param `limit`.
 */
export function firstValues(query: string, declared: ReadonlySet<string>): Record<string, string | number> {
  const values: Record<string, string | number> = {};
  for (const [name, value] of new URLSearchParams(query)) {
    if (!declared.has(name) || name in values) continue;
    values[name] = name === 'limit' && /^[0-9]{1,4}$/.test(value) ? Number(value) : value;
  }
  return values;
}

/**
 * The router decodes path parameters with decodeURIComponent, which throws on a malformed escape
 * such as `%E0%A4%A`. Such a segment is escaped once more, so it decodes to its literal text: an
 * ID of the wrong form, which passes every check and ends in 404 (openapi.yaml and
 * console-api.yaml answer an unknown path or ID with 404). The public API and the console route
 * through this one function.
 */
export function decodablePath(path: string): string {
  // Without a `%` there is no escape to be malformed.
  if (!path.includes('%')) return path;
  return path
    .split('/')
    .map((segment) => {
      try {
        decodeURIComponent(segment);
        return segment;
      } catch {
        return encodeURIComponent(segment);
      }
    })
    .join('/');
}
