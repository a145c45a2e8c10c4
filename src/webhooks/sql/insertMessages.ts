import type { Queryable } from '../../db/connect.js';

export interface NewMessage {
  id: string;
  workspaceId: string;
  type: string;
  body: string;
  /** The offer the event is about; none for ping. The console's log searches by it. */
  offerId?: string | null;
  /** When the product's transaction recorded the event (outbox created_at); none for ping. */
  recordedAt?: Date | null;
  /** The traceparent of the action behind the event (tracing on): each attempt links to it. */
  traceparent?: string | null;
}

/**
 * Stores prepared bodies, set-based, made `now` (in that day's partition of webhook_messages,
 * migration 0032); an id already stored that day is kept as it was. An id is unique by
 * construction (an event's is its outbox row's, fanned out once; a ping's is random), so no
 * other day is probed for it.
 */
export async function insertMessages(sql: Queryable, messages: NewMessage[], now: Date): Promise<void> {
  if (messages.length === 0) return;
  await sql`
    insert into webhook_messages (id, workspace_id, type, body, offer_id, created_at, event_recorded_at, traceparent)
    select m.id, m.workspace_id, m.type, m.body, m.offer_id, ${now}, m.recorded_at, m.traceparent
      from unnest(${messages.map((m) => m.id)}::uuid[],
                  ${messages.map((m) => m.workspaceId)}::uuid[],
                  ${messages.map((m) => m.type)}::text[],
                  ${messages.map((m) => m.body)}::text[],
                  ${messages.map((m) => m.offerId ?? null)}::uuid[],
                  ${messages.map((m) => m.recordedAt?.toISOString() ?? null)}::timestamptz[],
                  ${messages.map((m) => m.traceparent ?? null)}::text[]) as m(id, workspace_id, type, body, offer_id, recorded_at, traceparent)
    on conflict do nothing`;
}
