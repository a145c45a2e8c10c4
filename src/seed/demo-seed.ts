import { DAY, HOUR, MINUTE, type Clock } from '../clock.js';
import type { Sql } from '../db/connect.js';
import { createAccount, createWorkspace } from '../domain/accounts.js';
import { createApiKey } from '../domain/api-keys.js';
import {
  acceptOffer,
  createOffer,
  editOffer,
  expireOffer,
  failCode,
  requestCode,
  sendOffer,
  signOffer,
  useCalculator,
  verifyCode,
  viewOffer,
  viewSection,
  viewSummary,
  withdrawOffer,
} from '../domain/offer-actions.js';
import { COMPANIES, FIRST_NAMES, LAST_NAMES, SERVICES } from './names.js';
import { seedOffers } from './seed.js';

export const DEMO_OFFERS = 40;
/**
 * Offers of earlier months that `npm start` adds to the demo workspace through the bulk seed
 * (seed.ts: realistic lifecycles, no webhook outbox rows), so that every README example can be
 * tried: each status has several pages at limit=10, and most timelines are longer than one page
 * at limit=5. About half a second on the embedded database.
 */
export const DEMO_HISTORY_OFFERS = 800;
/** Fixed, so every fresh demo database holds the same history. */
export const DEMO_HISTORY_SEED = 20_261_123;

/** The demo workspace's owner: the `--as` of CLI examples (README, start banner); `serve` prints a console sign-in link for this account. */
export const DEMO_OWNER_EMAIL = 'owner@demo-agency.example';

/**
 * The demo workspace `npm start` creates on the first start of an empty database: an owner,
 * "Demo Agency" (Europe/Berlin, EUR), 40 offers driven through the real actions (so their
 * timelines and the webhook outbox look exactly like production's) and one API key.
 * Offers cycle through eight lifecycles; all happened in the 60 days before now.
 */
export async function seedDemoWorkspace(
  sql: Sql,
  clock: Clock,
  options: { historyOffers?: number } = {},
): Promise<{ workspaceId: string; accountId: string; apiKey: string }> {
  const owner = await createAccount(sql, clock, { email: DEMO_OWNER_EMAIL, name: 'Dana Demo' });
  const { id: workspaceId } = await createWorkspace(sql, clock, {
    name: 'Demo Agency',
    timezone: 'Europe/Berlin',
    currency: 'EUR',
    ownerAccountId: owner.id,
  });
  const now = clock.now().getTime();
  for (let k = 0; k < DEMO_OFFERS; k++) await demoOffer(sql, clock, workspaceId, k, now);
  if (options.historyOffers) {
    await seedOffers(sql, { workspaceId, offers: options.historyOffers, randomSeed: DEMO_HISTORY_SEED, now: clock.now(), parallel: 1 });
  }
  const { key } = await createApiKey(sql, clock, {
    workspaceId,
    name: 'Demo key',
    actingAccountId: owner.id,
    via: { label: 'demo seed', ip: null },
  });
  return { workspaceId, accountId: owner.id, apiKey: key };
}

async function demoOffer(sql: Sql, clock: Clock, workspaceId: string, k: number, now: number): Promise<void> {
  const pick = <T>(list: readonly T[], salt: number): T => list[(k * 7 + salt * 13) % list.length]!;
  const company = pick(COMPANIES, 1);
  const first = pick(FIRST_NAMES, 2);
  const last = pick(LAST_NAMES, 3);
  const domain = `${company.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.example`;
  const email = `${first.toLowerCase()}.${last.toLowerCase()}@${domain}`;
  const base = now - (60 - k) * DAY;
  let t = base;
  /** The next moment of this offer's story: strictly after the previous one, never after now. */
  const next = (step = 3 * HOUR): Date => new Date((t += step));
  const scenario = k % 8;
  const basic = 150_000 + ((k * 37_000) % 400_000);

  const { id: offerId } = await createOffer(sql, clock, {
    workspaceId,
    title: `${pick(SERVICES, 4)} for ${company}`,
    at: new Date(t),
    sections: [
      { id: 'intro', kind: 'text', title: 'About this offer', body: `Dear ${first}, thank you for your enquiry.` },
      {
        id: 'pricing',
        kind: 'pricing',
        title: 'Your investment',
        packages: [
          { name: 'Starter', amount: basic },
          { name: 'Professional', amount: basic * 2, recommended: k % 3 !== 0 },
          { name: 'Enterprise', amount: basic * 4 },
        ],
      },
      { id: 'terms', kind: 'text', title: 'Terms', body: 'Payment within 14 days of invoice.' },
    ],
  });
  if (k % 2 === 0) await editOffer(sql, clock, { offerId, title: `${pick(SERVICES, 4)} for ${company} (revised)`, at: next() });
  if (scenario === 0) return;

  const signers = scenario === 2 ? 3 : scenario === 4 ? 2 : 1;
  const overdue = scenario === 6 || scenario === 7;
  const send = (at: Date) =>
    sendOffer(sql, clock, {
      offerId,
      recipientEmail: email,
      recipientName: `${first} ${last}`,
      recipientCompany: k % 5 === 4 ? null : company,
      expiresAt: new Date(overdue ? at.getTime() + 14 * DAY : now + 21 * DAY),
      signers,
      message: `Hello ${first}, here is our offer as discussed.`,
      at,
    });
  await send(next(DAY));
  await viewOffer(sql, clock, { offerId, ip: '203.0.113.10', userAgent: 'Mozilla/5.0 (Macintosh)', at: next(5 * HOUR) });
  if (scenario === 1 || scenario === 3) {
    await send(next(DAY)); // a second version after a call with the client
    await viewOffer(sql, clock, { offerId, at: next(2 * HOUR) });
  }
  await viewSection(sql, clock, { offerId, sectionId: 'pricing', durationMs: 20_000 + k * 1_000, at: next(2 * MINUTE) });
  if (k % 3 === 0) await useCalculator(sql, clock, { offerId, at: next(MINUTE) });
  await viewSummary(sql, clock, { offerId, at: next(MINUTE) });

  switch (scenario) {
    case 2: // several signers, the first has signed
      await requestCode(sql, clock, { offerId, signerEmail: email, at: next(HOUR) });
      await verifyCode(sql, clock, { offerId, signerEmail: email, at: next(MINUTE) });
      await signOffer(sql, clock, { offerId, signerName: `${first} ${last}`, signerEmail: email, role: 'Managing Director', at: next(MINUTE) });
      return;
    case 3:
      await requestCode(sql, clock, { offerId, signerEmail: email, at: next(HOUR) });
      await failCode(sql, clock, { offerId, signerEmail: email, at: next(MINUTE) });
      await verifyCode(sql, clock, { offerId, signerEmail: email, at: next(MINUTE) });
      await acceptOffer(sql, clock, { offerId, signerName: `${first} ${last}`, signerEmail: email, at: next(MINUTE) });
      return;
    case 4:
      await signOffer(sql, clock, { offerId, signerName: `${first} ${last}`, signerEmail: email, role: 'CEO', at: next(HOUR) });
      await signOffer(sql, clock, { offerId, signerName: 'Chris Controller', signerEmail: `finance@${domain}`, at: next(DAY) });
      return;
    case 5:
      await withdrawOffer(sql, clock, { offerId, at: next(DAY) });
      return;
    case 7:
      await expireOffer(sql, clock, { offerId });
      return;
    default: // 1: open and viewed; 6: past its deadline, not yet expired by the job
      return;
  }
}
