import type { EndpointRow } from '../sql/readEndpoint.js';

/** An endpoint as management shows it (console-api.yaml "Webhook endpoints"): never its secret. */
export interface EndpointView {
  id: string;
  workspace_id: string;
  url: string;
  events: string[];
  state: 'active' | 'paused';
  /** Deliveries in a row that failed finally; 5 pauses the endpoint. */
  failure_streak: number;
  created_at: string;
  updated_at: string;
  paused_at: string | null;
}

export function toEndpointView(row: EndpointRow): EndpointView {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    url: row.url,
    events: row.event_types,
    state: row.state,
    failure_streak: row.failure_streak,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    paused_at: row.paused_at ? row.paused_at.toISOString() : null,
  };
}
