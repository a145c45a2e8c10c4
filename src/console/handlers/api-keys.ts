import { sendJson } from '../../http/respond.js';
import { createApiKey, listApiKeys as listApiKeyRows, readApiKeyListing, revokeApiKey, type ApiKeyListing } from '../../domain/api-keys.js';
import { requireManager, requireReader } from '../access.js';
import { signedIn, type ConsoleHandlerTable, type ConsoleRequest } from '../context.js';
import { refuse } from '../errors.js';
import { body, pageOf, pageRequest, pathParam } from './paging.js';

/**
 * API keys of a workspace (console-api.yaml "API keys"): any member lists them (never a value);
 * owners and admins create and revoke them through the same domain functions as the CLI.
 */
const LIST = 'api-keys';

function view({ created_at_key: _key, hint: _hint, ...key }: ApiKeyListing) {
  return key;
}

async function listApiKeys(request: ConsoleRequest): Promise<void> {
  const workspaceId = pathParam(request, 'workspaceId');
  await requireReader(request.deps.sql, signedIn(request).account.id, workspaceId);
  const page = pageRequest(request, LIST, workspaceId);
  const rows = await listApiKeyRows(request.deps.sql, request.deps.clock, { workspaceId, limit: page.limit + 1, after: page.after });
  sendJson(request.res, 200, pageOf(request, { list: LIST, workspaceId, limit: page.limit, rows, key: (r) => r.created_at_key, view }));
}

async function createApiKeyHandler(request: ConsoleRequest): Promise<void> {
  const workspaceId = pathParam(request, 'workspaceId');
  const account = signedIn(request).account;
  await requireManager(request.deps.sql, account.id, workspaceId);
  const input = body<{ name: string; expires_at?: string | null }>(request);
  const expiresAt = input.expires_at == null ? null : new Date(input.expires_at);
  if (expiresAt && Number.isNaN(expiresAt.getTime())) throw refuse.invalid('expires_at must be an ISO 8601 date-time.', 'expires_at');
  // The domain refuses it too; here it is answered at its field.
  if (expiresAt && expiresAt.getTime() <= request.deps.clock.now().getTime()) {
    throw refuse.invalid('expires_at must lie in the future.', 'expires_at');
  }
  const created = await createApiKey(request.deps.sql, request.deps.clock, {
    workspaceId,
    name: input.name,
    expiresAt,
    actingAccountId: account.id,
    via: request.via,
  });
  const listed = await readApiKeyListing(request.deps.sql, request.deps.clock, { workspaceId, keyId: created.id });
  sendJson(request.res, 201, { data: { ...view(listed!), value: created.key } });
}

async function revokeApiKeyHandler(request: ConsoleRequest): Promise<void> {
  const workspaceId = pathParam(request, 'workspaceId');
  const keyId = pathParam(request, 'keyId');
  const account = signedIn(request).account;
  await requireManager(request.deps.sql, account.id, workspaceId);
  // A key of another workspace is an unknown key here, even for someone who manages both.
  if (!(await readApiKeyListing(request.deps.sql, request.deps.clock, { workspaceId, keyId }))) throw refuse.notFound();
  await revokeApiKey(request.deps.sql, request.deps.clock, { keyId, actingAccountId: account.id, via: request.via });
  const listed = await readApiKeyListing(request.deps.sql, request.deps.clock, { workspaceId, keyId });
  sendJson(request.res, 200, { data: view(listed!) });
}

export const apiKeyHandlers: ConsoleHandlerTable = {
  listApiKeys,
  createApiKey: createApiKeyHandler,
  revokeApiKey: revokeApiKeyHandler,
};
