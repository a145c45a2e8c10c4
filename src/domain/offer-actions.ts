/**
 * The product's actions on an offer (openapi.yaml "Offer states"), one file per actor:
 * sender, recipient, acceptance, expiry. Each is one transaction: lock the offer row, check the
 * state table at the action's time, change the offer, append its timeline entry and, for actions
 * with a webhook type, write the outbox row (openapi.yaml "Webhook events"). A refused action
 * throws DomainError and changes nothing.
 *
 * `at` records an action as having happened in the past (imports, tests): never in the future,
 * never before the offer's last timeline entry, and time rules ("the deadline lies after the
 * sending", "the offer has expired") are judged at `at`.
 */

export { MAX_SECTION_VIEW_MS, MAX_SIGNERS, type ActionResult } from './offer-actions/common.js';
export {
  createOffer,
  editOffer,
  sendOffer,
  withdrawOffer,
  type CreateOfferInput,
  type EditOfferInput,
  type SendOfferInput,
} from './offer-actions/sender.js';
export {
  failCode,
  requestCode,
  useCalculator,
  verifyCode,
  viewOffer,
  viewSection,
  viewSummary,
  type SignerCodeInput,
  type ViewOfferInput,
  type ViewSectionInput,
} from './offer-actions/recipient.js';
export { acceptOffer, signOffer, type SignerInput, type SignOfferInput } from './offer-actions/acceptance.js';
export { expireOffer } from './offer-actions/expiry.js';
export { expireDueOffers } from './expiry.js';
export type { SectionInput, PackageInput } from './sections.js';
