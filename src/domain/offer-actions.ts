import type { Clock } from '../clock.js';
import type { Sql, Tx } from '../db/connect.js';
import { recordWebhookEvent, type OfferWebhookType } from './outbox.js';
import { DomainError, invalidInput, invalidTransition, notFound } from './errors.js';
import { expireLockedBatch } from './expiry.js';
import { lockOffer, requireNotBeforeLastEntry, requireStatus, type LockedOffer, type OfferStatus } from './offer-state.js';
import { replaceSections, validateSections, type SectionInput } from './sections.js';
import { appendTimelineEntry, type TimelineEntry } from './timeline.js';
import {
  actionTime,
  optionalIp,
  optionalText,
  requireCurrency,
  requireEmail,
  requireInteger,
  requireText,
  requireTimestamp,
  requireUuid,
} from './validate.js';
import { recomputeOfferValues } from './value.js';

/**
 * The product's actions on an offer (issue #2 "Data and the product's write side"). Each is one
 * transaction: lock the offer row, check the state table of SPEC.md "States and transitions" at
 * the action's time, change the offer, append its timeline entry and, for actions with a webhook
 * type, write the outbox row. A refused action throws DomainError and changes nothing.
 *
 * `at` records an action as having happened in the past (imports, tests): never in the future,
 * never before the offer's last timeline entry, and time rules ("the deadline lies after the
 * sending", "the offer has expired") are judged at `at`.
 */

export { expireDueOffers } from './expiry.js';
export type { SectionInput, PackageInput } from './sections.js';

export interface ActionResult {
  offerId: string;
  status: OfferStatus;
  version: number | null;
  /** Sequence of the timeline entry this action appended. */
  sequence: number;
}

interface AtInput {
  offerId: string;
  at?: Date;
}

export const MAX_SIGNERS = 20;
/** A section view longer than a day is a tab left open, not a reading time. */
export const MAX_SECTION_VIEW_MS = 24 * 60 * 60 * 1000;

/** Runs `act` in one transaction holding the offer's row lock, with `at` resolved and checked. */
async function onOffer<T>(
  sql: Sql,
  clock: Clock,
  input: AtInput,
  act: (tx: Tx, offer: LockedOffer, at: Date) => Promise<T>,
): Promise<T> {
  const offerId = requireUuid(input.offerId, `offer ${String(input.offerId)}`);
  const at = actionTime(clock, input.at);
  return (await sql.begin(async (tx) => {
    const offer = await lockOffer(tx, offerId);
    requireNotBeforeLastEntry(offer, at);
    return act(tx, offer, at);
  })) as T;
}

/** Appends the entry and, when the action has a webhook type, its outbox row in the same transaction. */
async function record(
  tx: Tx,
  clock: Clock,
  offer: LockedOffer,
  entry: TimelineEntry,
  webhook: OfferWebhookType | null,
): Promise<number> {
  const sequence = await appendTimelineEntry(tx, offer.id, entry);
  if (webhook) {
    await recordWebhookEvent(tx, {
      workspaceId: offer.workspaceId,
      type: webhook,
      offerId: offer.id,
      offerSequence: sequence,
      occurredAt: entry.occurredAt,
      recordedAt: clock.now(),
    });
  }
  return sequence;
}

function result(offer: LockedOffer, status: OfferStatus, version: number | null, sequence: number): ActionResult {
  return { offerId: offer.id, status, version, sequence };
}

// ---------------------------------------------------------------------------------------------
// Sender side: create, edit, send, withdraw.

export interface CreateOfferInput {
  workspaceId: string;
  title: string;
  /** Defaults to the workspace currency. */
  currency?: string;
  sections?: SectionInput[];
  at?: Date;
}

export async function createOffer(sql: Sql, clock: Clock, input: CreateOfferInput): Promise<{ id: string }> {
  const workspaceId = requireUuid(input.workspaceId, `workspace ${String(input.workspaceId)}`);
  const title = requireText(input.title, 'title', 1, 500);
  const sections = validateSections(input.sections ?? []);
  const at = actionTime(clock, input.at);
  return sql.begin(async (tx) => {
    const [workspace] = await tx<{ currency: string }[]>`select currency from workspaces where id = ${workspaceId}::uuid`;
    if (!workspace) throw notFound(`workspace ${workspaceId}`);
    const currency = input.currency === undefined ? workspace.currency : requireCurrency(input.currency);
    const [row] = await tx<{ id: string }[]>`
      insert into offers (workspace_id, title, status, created_at, updated_at, currency)
      values (${workspaceId}::uuid, ${title}, 'draft', ${at}, ${at}, ${currency})
      returning id`;
    const id = row!.id;
    await replaceSections(tx, id, sections);
    await recomputeOfferValues(tx, [id]);
    await appendTimelineEntry(tx, id, { type: 'created', occurredAt: at, version: null });
    return { id };
  });
}

export interface EditOfferInput extends AtInput {
  title?: string;
  sections?: SectionInput[];
}

/** Edits the working copy of a draft or of a sent offer (the edit goes out with the next sending). */
export async function editOffer(sql: Sql, clock: Clock, input: EditOfferInput): Promise<ActionResult> {
  if (input.title === undefined && input.sections === undefined) throw invalidInput('nothing to edit: give a title or sections');
  const title = input.title === undefined ? undefined : requireText(input.title, 'title', 1, 500);
  const sections = input.sections === undefined ? undefined : validateSections(input.sections);
  return onOffer(sql, clock, input, async (tx, offer, at) => {
    requireStatus(offer, at, ['draft', 'sent'], 'edit');
    if (title !== undefined) await tx`update offers set title = ${title} where id = ${offer.id}::uuid`;
    if (sections !== undefined) {
      await replaceSections(tx, offer.id, sections);
      await recomputeOfferValues(tx, [offer.id]);
    }
    // The edit concerns the unsent working copy, not a sent version: version null.
    const sequence = await record(tx, clock, offer, { type: 'edited', occurredAt: at, version: null }, null);
    return result(offer, offer.status, offer.version, sequence);
  });
}

export interface SendOfferInput extends AtInput {
  recipientEmail: string;
  recipientName?: string | null;
  recipientCompany?: string | null;
  expiresAt: Date;
  /** Signatures the sent version needs: 1 (default) to 20; more than 1 makes a multi-signer offer. */
  signers?: number;
  message?: string | null;
}

/**
 * draft → sent (version 1) or sent → sent (a new version). Signatures belong to one version
 * (offer_signatures is keyed by it), so a new version starts with none.
 */
export async function sendOffer(sql: Sql, clock: Clock, input: SendOfferInput): Promise<ActionResult> {
  const recipientEmail = requireEmail(input.recipientEmail, 'recipient email');
  const recipientName = optionalText(input.recipientName, 'recipient name', 200);
  const recipientCompany = optionalText(input.recipientCompany, 'recipient company', 200);
  const message = optionalText(input.message, 'message', 10_000);
  const expiresAt = requireTimestamp(input.expiresAt, 'expires at');
  const signers = input.signers === undefined ? 1 : requireInteger(input.signers, 'signers', 1, MAX_SIGNERS);
  return onOffer(sql, clock, input, async (tx, offer, at) => {
    requireStatus(offer, at, ['draft', 'sent'], 'send');
    if (expiresAt.getTime() <= at.getTime()) {
      throw invalidInput(`expires at (${expiresAt.toISOString()}) must lie after the sending (${at.toISOString()})`);
    }
    const version = (offer.version ?? 0) + 1;
    await tx`
      update offers
         set status = 'sent', sent_at = ${at}, expires_at = ${expiresAt}, version = ${version},
             recipient_email = ${recipientEmail}, recipient_name = ${recipientName},
             recipient_company = ${recipientCompany}, signers_required = ${signers}, message = ${message}
       where id = ${offer.id}::uuid`;
    const sequence = await record(
      tx,
      clock,
      offer,
      { type: 'sent', occurredAt: at, version, data: { recipient_email: recipientEmail } },
      'offer.sent',
    );
    return result(offer, 'sent', version, sequence);
  });
}

export async function withdrawOffer(sql: Sql, clock: Clock, input: AtInput): Promise<ActionResult> {
  return onOffer(sql, clock, input, async (tx, offer, at) => {
    requireStatus(offer, at, ['sent'], 'withdraw');
    await tx`update offers set status = 'withdrawn' where id = ${offer.id}::uuid`;
    const sequence = await record(
      tx,
      clock,
      offer,
      { type: 'withdrawn', occurredAt: at, version: offer.version },
      'offer.withdrawn',
    );
    return result(offer, 'withdrawn', offer.version, sequence);
  });
}

// ---------------------------------------------------------------------------------------------
// Recipient side: everything happens on the public page of a sent, not yet expired offer.

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

// ---------------------------------------------------------------------------------------------
// Acceptance: a single signer accepts; several signers sign one after another.

export interface SignerInput extends AtInput {
  signerName: string;
  signerEmail: string;
}

export interface SignOfferInput extends SignerInput {
  role?: string | null;
}

async function addSignature(
  tx: Tx,
  offer: LockedOffer,
  at: Date,
  signer: { name: string; email: string; role: string | null },
): Promise<number> {
  const [already] = await tx`
    select 1 from offer_signatures
     where offer_id = ${offer.id}::uuid and version = ${offer.version} and lower(signer_email) = lower(${signer.email})`;
  if (already) {
    throw invalidTransition(`${signer.email} has already signed version ${offer.version} of offer ${offer.id}`);
  }
  const [row] = await tx<{ signing_order: number }[]>`
    insert into offer_signatures (offer_id, version, signing_order, signer_name, signer_email, signer_role, signed_at)
    select ${offer.id}::uuid, ${offer.version}, count(*) + 1, ${signer.name}, ${signer.email}, ${signer.role}, ${at}
      from offer_signatures
     where offer_id = ${offer.id}::uuid and version = ${offer.version}
    returning signing_order`;
  return row!.signing_order;
}

async function accept(tx: Tx, clock: Clock, offer: LockedOffer, at: Date, name: string, email: string): Promise<ActionResult> {
  await tx`
    update offers
       set status = 'accepted', accepted_at = ${at}, accepted_by_name = ${name}, accepted_by_email = ${email}
     where id = ${offer.id}::uuid`;
  const sequence = await record(
    tx,
    clock,
    offer,
    { type: 'accepted', occurredAt: at, version: offer.version, data: { signer_email: email } },
    'offer.accepted',
  );
  return result(offer, 'accepted', offer.version, sequence);
}

/** A single-signer offer is accepted by its recipient. Multi-signer offers use signOffer. */
export async function acceptOffer(sql: Sql, clock: Clock, input: SignerInput): Promise<ActionResult> {
  const name = requireText(input.signerName, 'signer name', 1, 200);
  const email = requireEmail(input.signerEmail, 'signer email');
  return onOffer(sql, clock, input, async (tx, offer, at) => {
    requireStatus(offer, at, ['sent'], 'accept');
    if (offer.signersRequired > 1) {
      throw invalidTransition(
        `offer ${offer.id} needs ${offer.signersRequired} signatures; each signer signs instead of accepting`,
      );
    }
    await addSignature(tx, offer, at, { name, email, role: null });
    return accept(tx, clock, offer, at, name, email);
  });
}

/**
 * One signer of a multi-signer offer signs (SPEC.md "States and transitions": sent → sent with
 * offer.signed). The last signature accepts the offer instead: "the last signature is followed
 * by offer.accepted", so it emits offer.accepted and no offer.signed.
 */
export async function signOffer(
  sql: Sql,
  clock: Clock,
  input: SignOfferInput,
): Promise<ActionResult & { accepted: boolean }> {
  const name = requireText(input.signerName, 'signer name', 1, 200);
  const email = requireEmail(input.signerEmail, 'signer email');
  const role = input.role === undefined || input.role === null ? null : requireText(input.role, 'role', 1, 100);
  return onOffer(sql, clock, input, async (tx, offer, at) => {
    requireStatus(offer, at, ['sent'], 'sign');
    if (offer.signersRequired <= 1) {
      throw invalidTransition(`offer ${offer.id} has a single signer; it is accepted, not signed`);
    }
    const order = await addSignature(tx, offer, at, { name, email, role });
    if (order >= offer.signersRequired) return { ...(await accept(tx, clock, offer, at, name, email)), accepted: true };
    const data: Record<string, string | number> = { signer_email: email };
    if (role !== null) data.signer_role = role;
    data.signing_order = order;
    data.signer_total = offer.signersRequired;
    const sequence = await record(
      tx,
      clock,
      offer,
      { type: 'signed', occurredAt: at, version: offer.version, data },
      'offer.signed',
    );
    return { ...result(offer, 'sent', offer.version, sequence), accepted: false };
  });
}

// ---------------------------------------------------------------------------------------------
// Expiry of one offer (the CLI's `offer expire`); the job's bulk form is expireDueOffers.

/**
 * Expires one sent offer whose deadline has passed at `at` (default now). The entry itself is
 * dated at the deadline, like the job's (see expiry.ts).
 */
export async function expireOffer(sql: Sql, clock: Clock, input: AtInput): Promise<ActionResult> {
  return onOffer(sql, clock, input, async (tx, offer, at) => {
    if (offer.status === 'sent' && offer.expiresAt!.getTime() > at.getTime()) {
      throw invalidTransition(`cannot expire offer ${offer.id}: its deadline ${offer.expiresAt!.toISOString()} has not passed`);
    }
    requireStatus(offer, at, ['expired'], 'expire');
    if (offer.status !== 'sent') throw new DomainError('invalid_transition', `offer ${offer.id} is already expired`);
    const [expired] = await expireLockedBatch(tx, clock, { offerId: offer.id, now: at, limit: 1 });
    return result(offer, 'expired', offer.version, expired!.sequence);
  });
}
