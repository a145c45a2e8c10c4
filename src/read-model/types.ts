/**
 * Wire shapes of SPEC.md "Resources and their fields", as openapi.yaml's component schemas
 * define them (src/contract.ts, generated from the document).
 */
export type { Offer, OfferEvent, OfferStatus, Workspace } from '../contract.js';
