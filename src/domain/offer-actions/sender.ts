import type { Clock } from '../../clock.js';
import type { Sql } from '../../db/connect.js';
import { invalidInput, notFound } from '../errors.js';
import { requireStatus } from '../offer-state.js';
import { replaceSections, validateSections, type SectionInput } from '../sections.js';
import { appendTimelineEntry } from '../timeline.js';
import {
  actionTime,
  optionalText,
  requireCurrency,
  requireEmail,
  requireInteger,
  requireText,
  requireTimestamp,
  requireUuid,
} from '../validate.js';
import { recomputeOfferValues } from '../value.js';
import { MAX_SIGNERS, onOffer, record, result, type ActionResult, type AtInput } from './common.js';

/** Sender side: create, edit, send, withdraw. */

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
