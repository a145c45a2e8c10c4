import type { SuccessBody } from '../../contract.js';
import { readWorkspace } from '../../read-model/workspace.js';
import { reply } from '../errors.js';
import { readHandler, type ReadDeps, type ReadOperation } from '../read-operation.js';
import { sendJson } from '../respond.js';

/** GET /workspace: the key's workspace; also serves as a key check. */
const workspace: ReadOperation<null> = {
  readQuery: () => null,
  async respond({ workspaceId }, res, { sql }) {
    const found = await readWorkspace(sql, workspaceId);
    if (!found) return reply.unauthorized(res);
    sendJson(res, 200, { data: found } satisfies SuccessBody<'getWorkspace'>);
  },
};

export function workspaceHandlers(deps: ReadDeps) {
  return { getWorkspace: readHandler(workspace, deps) };
}
