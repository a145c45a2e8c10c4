import type { Clock } from '../../clock.js';
import type { Sql, Tx } from '../../db/connect.js';
import { invalidTransition } from '../errors.js';
import { requireStatus, type LockedOffer } from '../offer-state.js';
import { requireEmail, requireText } from '../validate.js';
import { onOffer, record, result, type ActionResult, type AtInput } from './common.js';

/** Acceptance: a single signer accepts; several signers sign one after another. */

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
 * One signer of a multi-signer offer signs (openapi.yaml "Offer states": sent → sent with
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
