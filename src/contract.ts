/**
 * The wire types of the API and the webhooks, taken from `generated/openapi.ts` (what
 * `npm run generate` derives from openapi.yaml), never written again by hand: a change to the
 * document that the code does not follow fails the typecheck (openapi.yaml "Versioning": names and
 * meanings of existing fields do not change).
 */
import type { components, operations } from '../generated/openapi.js';

type Schemas = components['schemas'];

export type Workspace = Schemas['Workspace'];
export type Offer = Schemas['Offer'];
export type OfferStatus = Schemas['OfferStatus'];
export type OfferEvent = Schemas['OfferEvent'];
export type OfferEventData = Schemas['OfferEventData'];
export type ErrorCode = Schemas['ErrorCode'];
export type ErrorBody = Schemas['Error'];
export type PingWebhookEvent = Schemas['PingWebhookEvent'];

/** Every webhook body the `webhooks` section describes, by its `type`. */
export type WebhookEvent = {
  [Op in keyof operations]: operations[Op] extends { requestBody: { content: { 'application/json': infer Body } } } ? Body : never;
}[keyof operations];
export type OfferWebhookEvent = Exclude<WebhookEvent, PingWebhookEvent>;
export type OfferWebhookEventType = OfferWebhookEvent['type'];

/** The body of an operation's 200 answer, by operationId. */
export type SuccessBody<Op extends keyof operations> = operations[Op]['responses'] extends {
  200: { content: { 'application/json': infer Body } };
}
  ? Body
  : never;

export { exhaustive } from './exhaustive.js';
