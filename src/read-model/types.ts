/**
 * Wire shapes of SPEC.md "Resources and their fields". They mirror the component schemas of
 * openapi.yaml; the Prism gate (contract-tests/gate-prism.sh) checks every response against it.
 */
import type { OfferStatus } from '../domain/offer-state.js';

export type { OfferStatus };

export interface Workspace {
  id: string;
  name: string;
  timezone: string;
  currency: string;
}

export interface Offer {
  id: string;
  title: string;
  status: OfferStatus;
  created_at: string;
  updated_at: string;
  sent_at: string | null;
  expires_at: string | null;
  accepted_at: string | null;
  expired_at: string | null;
  version: number | null;
  recipient: { name: string | null; company: string | null; email: string | null };
  accepted_by: { name: string; email: string } | null;
  value: { amount: number; currency: string };
}

export interface OfferEvent {
  sequence: number;
  type: string;
  occurred_at: string;
  version: number | null;
  data: Record<string, unknown>;
}
