import type { Clock } from '../../clock.js';
import type { Sql } from '../../db/connect.js';
import { invalidInput } from '../errors.js';
import { requireStatus } from '../offer-state.js';
import { optionalIp, optionalText, requireEmail, requireInteger, requireText } from '../validate.js';
import { MAX_SECTION_VIEW_MS, onOffer, record, result, type ActionResult, type AtInput } from './common.js';

/** Recipient side: everything happens on the public page of a sent, not yet expired offer. */

export interface ViewOfferInput extends AtInput {
  ip?: string | null;
  userAgent?: string | null;
}

/** A view of the public page; the first view of each sent version emits offer.first_viewed. */
export async function viewOffer(sql: Sql, clock: Clock, input: ViewOfferInput): Promise<ActionResult> {
  const ip = optionalIp(input.ip);
  const userAgent = optionalText(input.userAgent, 'user agent', 1000);
  return onOffer(sql, clock, input, async (tx, offer, at) => {
    requireStatus(offer, at, ['sent'], 'view');
    const first = offer.firstViewedVersion === null || offer.firstViewedVersion < offer.version!;
    if (first) await tx`update offers set first_viewed_version = ${offer.version} where id = ${offer.id}::uuid`;
    const sequence = await record(
      tx,
      clock,
      offer,
      { type: 'viewed', occurredAt: at, version: offer.version, ip, userAgent },
      first ? 'offer.first_viewed' : null,
    );
    return result(offer, 'sent', offer.version, sequence);
  });
}

export interface ViewSectionInput extends AtInput {
  sectionId: string;
  durationMs: number;
}

export async function viewSection(sql: Sql, clock: Clock, input: ViewSectionInput): Promise<ActionResult> {
  const sectionId = requireText(input.sectionId, 'section id', 1, 64);
  const durationMs = requireInteger(input.durationMs, 'duration ms', 0, MAX_SECTION_VIEW_MS);
  return onOffer(sql, clock, input, async (tx, offer, at) => {
    requireStatus(offer, at, ['sent'], 'record a section view of');
    const [section] = await tx`
      select 1 from offer_sections where offer_id = ${offer.id}::uuid and section_id = ${sectionId}`;
    if (!section) throw invalidInput(`offer ${offer.id} has no section "${sectionId}"`);
    const sequence = await record(
      tx,
      clock,
      offer,
      {
        type: 'section_viewed',
        occurredAt: at,
        version: offer.version,
        data: { section_id: sectionId, duration_ms: durationMs },
      },
      null,
    );
    return result(offer, 'sent', offer.version, sequence);
  });
}

/** Recipient interactions that only add a timeline entry (no webhook type exists for them). */
function interaction(type: 'calculator_used' | 'summary_viewed', action: string) {
  return (sql: Sql, clock: Clock, input: AtInput): Promise<ActionResult> =>
    onOffer(sql, clock, input, async (tx, offer, at) => {
      requireStatus(offer, at, ['sent'], action);
      const sequence = await record(tx, clock, offer, { type, occurredAt: at, version: offer.version }, null);
      return result(offer, 'sent', offer.version, sequence);
    });
}

export const useCalculator = interaction('calculator_used', 'record calculator use on');
export const viewSummary = interaction('summary_viewed', 'record a summary view of');

export interface SignerCodeInput extends AtInput {
  signerEmail: string;
}

/** Steps of the acceptance code a signer receives by email (requested, failed, verified). */
function codeStep(type: 'code_requested' | 'code_failed' | 'code_verified', action: string) {
  return (sql: Sql, clock: Clock, input: SignerCodeInput): Promise<ActionResult> => {
    const signerEmail = requireEmail(input.signerEmail, 'signer email');
    return onOffer(sql, clock, input, async (tx, offer, at) => {
      requireStatus(offer, at, ['sent'], action);
      const sequence = await record(
        tx,
        clock,
        offer,
        { type, occurredAt: at, version: offer.version, data: { signer_email: signerEmail } },
        null,
      );
      return result(offer, 'sent', offer.version, sequence);
    });
  };
}

export const requestCode = codeStep('code_requested', 'request a code for');
export const failCode = codeStep('code_failed', 'record a failed code for');
export const verifyCode = codeStep('code_verified', 'verify a code for');
