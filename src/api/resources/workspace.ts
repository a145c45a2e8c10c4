import type { SuccessBody, Workspace } from '../../contract.js';
import { readWorkspace } from '../../read-model/workspace.js';
import { reply } from '../errors.js';
import { readHandler, type ReadDeps, type ReadOperation } from '../read-operation.js';
import { sendJson } from '../../http/respond.js';

/** GET /workspace: the key's workspace; also serves as a key check. */
const workspace: ReadOperation<null, Workspace | null> = {
  readQuery: () => null,
  read: ({ scope, now }, { sql }) => readWorkspace(sql, scope, now),
  respond({ value }, res) {
    if (!value) return reply.unauthorized(res);
    sendJson(res, 200, { data: value } satisfies SuccessBody<'getWorkspace'>);
  },
};

/** Handlers by operationId. */
export function workspaceHandlers(deps: ReadDeps) {
  return { getWorkspace: readHandler(workspace, deps) };
}
