import { loadOpenApiDocument } from '../../http/openapi-document.js';
import { sendJson } from '../../http/respond.js';
import type { ConsoleHandlerTable, ConsoleRequest } from '../context.js';

/**
 * The subscribable webhook types with their one-line description, taken from the `webhooks`
 * section of the public openapi.yaml (its contract), so the console never drifts from it.
 * `ping` is excluded: openapi.yaml "Webhook events": it "cannot be subscribed to".
 */
export function subscribableEventTypes(): { type: string; description: string }[] {
  const webhooks = (loadOpenApiDocument().document.webhooks ?? {}) as Record<string, { post?: { summary?: string } }>;
  return Object.entries(webhooks)
    .filter(([type]) => type !== 'ping')
    .map(([type, item]) => ({ type, description: item.post?.summary ?? type }));
}

function listEventTypes(request: ConsoleRequest): void {
  sendJson(request.res, 200, { data: subscribableEventTypes(), next_cursor: null });
}

export const eventTypeHandlers: ConsoleHandlerTable = { listEventTypes };
