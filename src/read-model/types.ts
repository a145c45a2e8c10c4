/**
 * Wire shapes of openapi.yaml "Conventions", as openapi.yaml's component schemas
 * define them (src/contract.ts, generated from the document).
 */
export type { Offer, OfferEvent, OfferStatus, Workspace } from '../contract.js';
