/**
 * Follows an OpenAPI link the way a generic client does: it knows nothing of this API, only the
 * served document. The next page of a list is the 200 answer's link back to the same operation;
 * its parameters are runtime expressions (OpenAPI 3.1, "Runtime Expressions") evaluated against
 * the request just made and the answer to it.
 */
type Json = Record<string, unknown>;

export interface Call {
  path: Record<string, string>;
  query: Record<string, string | number>;
}

export function operationById(doc: Json, operationId: string): { parameters: { name: string; in: string }[]; links: Json } {
  for (const item of Object.values(doc.paths as Record<string, Json>)) {
    for (const [method, op] of Object.entries(item)) {
      if (method === 'parameters' || (op as Json).operationId !== operationId) continue;
      const parameters = [...((item.parameters as Json[]) ?? []), ...(((op as Json).parameters as Json[]) ?? [])].map((p) => resolve(doc, p));
      const ok = resolve(doc, ((op as Json).responses as Json)['200']);
      return { parameters: parameters as { name: string; in: string }[], links: (ok.links as Json) ?? {} };
    }
  }
  throw new Error(`the served document has no operation ${operationId}`);
}

/** The next call of a paged walk, or null on the last page (a body value the link needs is null). */
export function nextCall(doc: Json, operationId: string, made: Call, body: unknown): Call | null {
  const { links } = operationById(doc, operationId);
  const selfLinks = Object.values(links).filter((link) => (link as Json).operationId === operationId);
  if (selfLinks.length !== 1) throw new Error(`${operationId}: expected one link back to itself, found ${selfLinks.length}`);
  const { parameters } = operationById(doc, operationId);
  const next: Call = { path: {}, query: {} };
  for (const [name, expression] of Object.entries(((selfLinks[0] as Json).parameters as Record<string, string>) ?? {})) {
    const value = evaluate(String(expression), made, body);
    const fromBody = String(expression).startsWith('$response.body');
    if (value === undefined || value === null) {
      if (fromBody) return null;
      continue; // a request value that was not sent is not sent again
    }
    const where = parameters.find((p) => p.name === name)?.in ?? 'query';
    if (where === 'path') next.path[name] = String(value);
    else next.query[name] = value as string | number;
  }
  return next;
}

function evaluate(expression: string, made: Call, body: unknown): unknown {
  const request = /^\$request\.(path|query)\.(.+)$/.exec(expression);
  if (request) return request[1] === 'path' ? made.path[request[2]!] : made.query[request[2]!];
  const response = /^\$response\.body#(.*)$/.exec(expression);
  if (response) return pointer(body, response[1]!);
  throw new Error(`runtime expression not supported by this walker: ${expression}`);
}

function pointer(value: unknown, path: string): unknown {
  let at = value;
  for (const raw of path.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    at = at && typeof at === 'object' ? (at as Json)[key] : undefined;
  }
  return at;
}

function resolve(doc: Json, node: unknown): Json {
  const ref = (node as Json)?.$ref;
  if (typeof ref !== 'string') return (node as Json) ?? {};
  let at: unknown = doc;
  for (const part of ref.slice(2).split('/')) at = (at as Json)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  return at as Json;
}
