import type { Request, Response } from 'express';
import type { Context } from 'openapi-backend';
import type { Clock } from '../clock.js';
import type { Sql } from '../db/connect.js';
import { isUuid } from '../domain/validate.js';
import { inWorkspace, type Cursors } from '../http/cursor.js';
import { reply } from './errors.js';
import { requestSpan, tracedDeps } from '../telemetry/tracing.js';
import type { Scope, Scoped } from '../read-model/scope.js';
import type { Admission } from './admission/admit.js';

export interface ReadDeps {
  sql: Sql;
  clock: Clock;
  cursors: Cursors;
}

export type QueryValues = Record<string, string | number | undefined>;

/** A read operation: the query checks that need no database, then one statement, then the answer. */
export interface ReadOperation<Q, V> {
  /** The rest of step 5 after the schema: cursor integrity and scope. `invalid` names the param. */
  readQuery(query: QueryValues, path: Record<string, string>, deps: ReadDeps): Q | { invalid: string };
  /** The query's cursor, if it has one: its workspace is checked once the key's is known. */
  cursor?(query: Q): { workspaceId: string } | null;
  /** Steps 6 and 7 in one statement: the key check and the read (null when the key is not valid). */
  read(input: { scope: Scope; now: Date; query: Q; path: Record<string, string> }, deps: ReadDeps): Promise<Scoped<V>>;
  /** Step 7's answer from what was read (404 when the resource is not there). */
  respond(input: { workspaceId: string; value: V; query: Q; path: Record<string, string> }, res: Response, deps: ReadDeps): void;
}

function isInvalid<Q>(value: Q | { invalid: string }): value is { invalid: string } {
  return typeof value === 'object' && value !== null && 'invalid' in value;
}

/**
 * Turns a ReadOperation into an openapi-backend handler. Steps 1-4 already ran in the security
 * handler and step 5's schema part in validation; this runs the rest of 5, then 6 and 7, whose
 * database work is one round trip (src/read-model/scope.ts).
 */
export function readHandler<Q, V>(operation: ReadOperation<Q, V>, deps: ReadDeps) {
  return async (c: Context, _req: Request, res: Response): Promise<void> => {
    const query = (c.request.query ?? {}) as QueryValues;
    const path = (c.request.params ?? {}) as Record<string, string>;
    const parsed = operation.readQuery(query, path, deps);
    if (isInvalid(parsed)) return reply.invalidParameter(res, parsed.invalid);

    const admission = c.security?.bearerAuth as Admission;
    // With tracing on and the request kept by the sampler, its statement is a child of its span.
    const read = { scope: { apiKeyHash: admission.keyHash }, now: deps.clock.now(), query: parsed, path };
    const found = await operation.read(read, tracedDeps(deps, requestSpan(res)));
    if (found === null) return reply.unauthorized(res);
    // openapi.yaml "Pagination": a cursor is used only with the list it came from, and one
    // workspace's list is not another's. Checked after step 6, as only then is the workspace
    // known, and answered like any other unusable cursor (what was read is not sent).
    if (!inWorkspace(operation.cursor?.(parsed) ?? null, found.workspaceId)) return reply.invalidParameter(res, 'cursor');

    operation.respond({ workspaceId: found.workspaceId, value: found.value, query: parsed, path }, res, deps);
  };
}

/** openapi.yaml "getOffer": an ID of the wrong form is answered like an unknown one (404). */
export function offerIdOrNull(raw: string | undefined): string | null {
  return raw !== undefined && isUuid(raw) ? raw.toLowerCase() : null;
}
