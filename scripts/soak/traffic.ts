import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { systemClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { createAccount, createWorkspace } from '../../src/domain/accounts.js';
import { createApiKey } from '../../src/domain/api-keys.js';
import { acceptOffer, createOffer, sendOffer, signOffer, viewOffer, withdrawOffer } from '../../src/domain/offer-actions.js';
import { OFFER_WEBHOOK_TYPES } from '../../src/domain/outbox.js';
import { createLogger } from '../../src/log.js';
import { loadMasterKeys } from '../../src/sealing/master-keys.js';
import { addEndpoint } from '../../src/webhooks/management/endpoints.js';
import { runJson, sleep } from '../bench/processes.js';
import type { EndpointKind, Ledger } from './ledger.js';
import type { World } from './world.js';

/**
 * The steady traffic: offer actions in many workspaces (the product's own actions, as the fault
 * suite commits them, and `offerdesk jobs run expire-offers` for expiry), reads of the public API
 * at a fixed rate, and console sessions that ask for mails (sign-in links, invitations).
 */

export interface Workspace {
  index: number;
  id: string;
  ownerId: string;
  ownerEmail: string;
  apiKey: string;
  /** Receiver paths of its endpoints. */
  paths: string[];
}

/** Which endpoints each workspace gets: every one a healthy endpoint, some a flaky, slow or gone one too. */
function kindsOf(index: number): EndpointKind[] {
  const kinds: EndpointKind[] = ['ok'];
  if (index % 2 === 1) kinds.push('flaky');
  if (index % 3 === 2) kinds.push('slow');
  if (index % 5 === 0) kinds.push('gone');
  return kinds;
}

/** oldReleaseDir: the upgrade drill's old checkout, built, when the database has its schema. */
export async function setUpWorkspaces(world: World, ledger: Ledger, count: number, oldReleaseDir?: string): Promise<Workspace[]> {
  // On the old release's schema (the upgrade drill) its own code adds the endpoints: this
  // release's writes what the newest migration makes (the ring's cursor, say).
  const add: typeof addEndpoint = oldReleaseDir
    ? ((await import(pathToFileURL(join(oldReleaseDir, 'dist', 'src', 'webhooks', 'management', 'endpoints.js')).href)) as { addEndpoint: typeof addEndpoint }).addEndpoint
    : addEndpoint;
  const config = loadConfig({ ...world.env } as NodeJS.ProcessEnv);
  const manage = { sql: world.sql, clock: systemClock, config: config.webhooks, masterKey: loadMasterKeys(config, createLogger('silent')).current };
  const tag = randomBytes(3).toString('hex');
  const workspaces: Workspace[] = [];
  for (let index = 0; index < count; index++) {
    const ownerEmail = `owner-${index}-${tag}@soak.example.com`;
    const owner = await createAccount(world.sql, systemClock, { email: ownerEmail, name: `Soak Owner ${index}` });
    const { id } = await createWorkspace(world.sql, systemClock, { name: `Soak ${index}`, timezone: 'Europe/Berlin', currency: 'EUR', ownerAccountId: owner.id });
    const { key } = await createApiKey(world.sql, systemClock, { workspaceId: id, name: 'soak reads', actingAccountId: owner.id });
    const paths: string[] = [];
    for (const kind of kindsOf(index)) {
      const path = `/ws/${index}/${kind}`;
      const { secret } = await add(manage, { workspaceId: id, url: `https://hooks.test${path}`, events: [...OFFER_WEBHOOK_TYPES], actorId: owner.id });
      ledger.addEndpoint({ path, kind, secret, workspace: index });
      paths.push(path);
    }
    workspaces.push({ index, id, ownerId: owner.id, ownerEmail, apiKey: key, paths });
  }
  return workspaces;
}

/** A product action not done after this is abandoned (a connection the driver lost may never answer). */
const ACTION_GIVE_UP_MS = 8_000;
/** How far ahead an offer that is left to expire is due: expiry needs real time to pass. */
export const EXPIRING_OFFER_DEADLINE_MS = 20_000;
const EXPIRY_JOB_EVERY_MS = 10_000;

function withDeadline<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('product action took too long')), ACTION_GIVE_UP_MS);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

type Plan = 'accept' | 'sign2' | 'withdraw' | 'expire' | 'linger';
interface OpenOffer {
  id: string;
  ws: Workspace;
  plan: Plan;
  step: number;
}

export interface OfferTraffic {
  /** Offers whose timeline the reads ask for. */
  readable: { id: string; ws: Workspace }[];
  /** Runs the expiry job once more (after the traffic stops: the last deadlines have passed). */
  stop(): Promise<void>;
}

/** Offers created, sent and moved through their plans, one action every `everyMs` per loop. */
export function startOfferTraffic(input: {
  world: World;
  ledger: Ledger;
  workspaces: Workspace[];
  everyMs: number;
  /** Until when (Date.now()) offers left to expire are still made, so their webhooks fit the run. */
  expiringUntil: number;
  log: (line: string) => void;
}): OfferTraffic {
  const { world, ledger, workspaces } = input;
  const sql = world.sql;
  const clock = systemClock;
  const open: OpenOffer[] = [];
  const readable: { id: string; ws: Workspace }[] = [];
  let stopping = false;
  let n = 0;

  const owe = (offer: { id: string; ws: Workspace }, type: string) => ledger.owe(offer.ws.paths, offer.id, type);

  async function newOffer(): Promise<void> {
    const ws = workspaces[Math.floor(Math.random() * workspaces.length)]!;
    const plans: Plan[] = ['accept', 'sign2', 'withdraw', 'linger'];
    if (Date.now() < input.expiringUntil) plans.push('expire', 'expire');
    const plan = plans[Math.floor(Math.random() * plans.length)]!;
    const number = ++n;
    const { id } = await withDeadline(createOffer(sql, clock, { workspaceId: ws.id, title: `Soak offer ${number}` }));
    const expiresAt = new Date(Date.now() + (plan === 'expire' ? EXPIRING_OFFER_DEADLINE_MS : 7 * 86_400_000));
    await withDeadline(sendOffer(sql, clock, { offerId: id, recipientEmail: `buyer${number}@client.example.com`, expiresAt, signers: plan === 'sign2' ? 2 : 1 }));
    const offer = { id, ws, plan, step: 1 };
    owe(offer, 'offer.sent');
    // Left alone, it expires once its deadline passes and the expiry job runs.
    if (plan === 'expire') owe(offer, 'offer.expired');
    else open.push(offer);
  }

  async function advance(offer: OpenOffer): Promise<void> {
    const { id } = offer;
    const signer = { signerName: 'Pat Buyer', signerEmail: 'pat@client.example.com' };
    const step = offer.step++;
    let done = false;
    if (step === 1) {
      await withDeadline(viewOffer(sql, clock, { offerId: id }));
      owe(offer, 'offer.first_viewed');
      if (offer.plan === 'linger') {
        done = true;
        readable.push(offer);
        if (readable.length > 200) readable.shift();
      }
    } else if (offer.plan === 'accept') {
      await withDeadline(acceptOffer(sql, clock, { offerId: id, ...signer }));
      owe(offer, 'offer.accepted');
      done = true;
    } else if (offer.plan === 'withdraw') {
      await withDeadline(withdrawOffer(sql, clock, { offerId: id }));
      owe(offer, 'offer.withdrawn');
      done = true;
    } else if (offer.plan === 'sign2') {
      const result = await withDeadline(signOffer(sql, clock, { offerId: id, ...signer, signerEmail: `signer${step}@client.example.com` }));
      // The last signature accepts instead of signing (docs: "the last signature is followed by offer.accepted").
      owe(offer, result.accepted ? 'offer.accepted' : 'offer.signed');
      done = result.accepted;
    }
    if (done) open.splice(open.indexOf(offer), 1);
  }

  const loop = async () => {
    while (!stopping) {
      const offer = open.length < 8 || Math.random() < 0.35 ? undefined : open[Math.floor(Math.random() * open.length)];
      try {
        if (offer) await advance(offer);
        else await newOffer();
      } catch {
        // The database was away or the action's commit is in doubt: the offer is left as it is
        // (its next steps are not owed), and an event that did commit shows as unowed.
        ledger.actionsFailed++;
        if (offer) open.splice(open.indexOf(offer), 1);
      }
      await sleep(input.everyMs);
    }
  };

  const runExpiryJob = async () => {
    try {
      await runJson('offerdesk jobs', 'bin/offerdesk.js', ['jobs', 'run', 'expire-offers', '--json'], definedEnv(world.env), true);
    } catch (error) {
      input.log(`expiry job failed (tried again): ${(error as Error).message.slice(0, 200)}`);
    }
  };
  const expiryLoop = (async () => {
    // The CLI migrates the database it opens: during the upgrade drill that is the drill's step.
    while (!stopping && !world.api) await sleep(250);
    while (!stopping) {
      await sleep(EXPIRY_JOB_EVERY_MS);
      if (!stopping) await runExpiryJob();
    }
  })();

  const loops = [loop(), loop()];
  return {
    readable,
    async stop() {
      stopping = true;
      await Promise.all([...loops, expiryLoop]);
      const lastDeadline = input.expiringUntil + EXPIRING_OFFER_DEADLINE_MS;
      if (Date.now() < lastDeadline) await sleep(lastDeadline - Date.now() + 1_000);
      await runExpiryJob();
    },
  };
}

export function definedEnv(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

const READ_TIMEOUT_MS = 15_000;
const MAX_READS_IN_FLIGHT = 40;

/** Reads of the public API at a fixed rate (an open loop: a slow service does not slow the rate). */
export function startReads(input: { world: World; ledger: Ledger; workspaces: Workspace[]; offers: OfferTraffic; perSecond: number }): { reads: () => number; stop(): Promise<void> } {
  const { world, ledger, workspaces, offers } = input;
  let inFlight = 0;
  let reads = 0;
  const one = async () => {
    const origin = world.api?.origin;
    if (!origin) return;
    const pick = offers.readable.length > 0 ? offers.readable[Math.floor(Math.random() * offers.readable.length)]! : undefined;
    const ws = pick?.ws ?? workspaces[Math.floor(Math.random() * workspaces.length)]!;
    const paths = ['/workspace', '/offers?limit=5', ...(pick ? [`/offers/${pick.id}`, `/offers/${pick.id}/events?limit=5`] : [])];
    const path = paths[reads % paths.length]!;
    inFlight++;
    reads++;
    let status = 0;
    try {
      const res = await fetch(`${origin}/api/v1${path}`, { headers: { authorization: `Bearer ${ws.apiKey}` }, signal: AbortSignal.timeout(READ_TIMEOUT_MS) });
      await res.arrayBuffer();
      status = res.status;
    } catch {
      // refused, reset or unanswered: recorded as "no answer"
    }
    inFlight--;
    ledger.answer('api', status);
  };
  const timer = setInterval(() => {
    if (inFlight < MAX_READS_IN_FLIGHT) void one();
  }, 1000 / input.perSecond);
  return {
    reads: () => reads,
    async stop() {
      clearInterval(timer);
      while (inFlight > 0) await sleep(50);
    },
  };
}

/** What a mail is, from the link it carries (console-api.yaml "Sessions"). */
export function mailKind(text: string): 'sign_in_link' | 'invitation' | null {
  if (text.includes('/console/sign-in#token=')) return 'sign_in_link';
  if (text.includes('/console/invitation#token=')) return 'invitation';
  return null;
}

/**
 * Console sessions: an owner asks for a sign-in link (a mail owed), signs in with the link from
 * that mail, and invites a new address (another mail owed). Every request carries the public
 * address's origin, as the console's own pages do.
 */
export function startConsole(input: { world: World; ledger: Ledger; workspaces: Workspace[]; everyMs: number; log: (line: string) => void }): { stop(): void; busy(): number; close(): Promise<void> } {
  const { world, ledger, workspaces } = input;
  const tokens = new Map<string, string[]>();
  let seenMails = 0;
  let stopping = false;
  let invited = 0;
  const flows = new Set<Promise<void>>();

  // Every mail the SMTP server got is classified once; sign-in tokens go to the flow waiting for them.
  const watch = setInterval(() => {
    const mails = world.smtp.received;
    for (; seenMails < mails.length; seenMails++) {
      const mail = mails[seenMails]!;
      const text = `${mail.parsed.text ?? ''}\n${typeof mail.parsed.html === 'string' ? mail.parsed.html : ''}`;
      const kind = mailKind(text);
      for (const to of mail.envelopeTo) {
        ledger.mailArrived(kind, to);
        const token = /\/console\/sign-in#token=([A-Za-z0-9_\-.~%]+)/.exec(text)?.[1];
        if (kind === 'sign_in_link' && token) tokens.set(to.toLowerCase(), [...(tokens.get(to.toLowerCase()) ?? []), token]);
      }
    }
  }, 200);

  const call = async (method: string, path: string, body?: unknown, cookie?: string): Promise<{ status: number; cookie?: string; json?: unknown }> => {
    const publicUrl = world.env.OFFERDESK_PUBLIC_URL!;
    try {
      const res = await fetch(`${world.api!.origin}/console/api${path}`, {
        method,
        headers: { origin: new URL(publicUrl).origin, 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(READ_TIMEOUT_MS),
      });
      const text = await res.text();
      ledger.answer('console', res.status);
      const setCookie = res.headers.get('set-cookie')?.split(';')[0];
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: res.status, cookie: setCookie, json };
    } catch {
      ledger.answer('console', 0);
      return { status: 0 };
    }
  };

  const flow = async (ws: Workspace) => {
    const email = ws.ownerEmail;
    const asked = await call('POST', '/session/link-request', { email });
    if (asked.status === 202) ledger.oweMail('sign_in_link', email);
    else if (asked.status === 0 || asked.status >= 500) ledger.mailInDoubt('sign_in_link', email);
    if (asked.status !== 202) return;
    // The link arrives when the mail does (late while the SMTP server is away; a link lasts 15 minutes).
    const deadline = Date.now() + 10 * 60_000;
    let token: string | undefined;
    while (!stopping && Date.now() < deadline && !(token = tokens.get(email)?.shift())) await sleep(250);
    if (!token || stopping) return;
    const signedIn = await call('POST', '/session/link', { token });
    if (signedIn.status !== 200 || !signedIn.cookie) return;
    const invitee = `invitee-${++invited}-${randomBytes(3).toString('hex')}@soak.example.com`;
    const invitation = await call('POST', `/workspaces/${ws.id}/invitations`, { email: invitee, role: 'member' }, signedIn.cookie);
    if (invitation.status === 201) ledger.oweMail('invitation', invitee);
    else if (invitation.status === 0 || invitation.status >= 500) ledger.mailInDoubt('invitation', invitee);
    await call('DELETE', '/session', undefined, signedIn.cookie);
  };

  const timer = setInterval(() => {
    if (stopping || !world.api) return;
    const ws = workspaces[Math.floor(Math.random() * workspaces.length)]!;
    const running = flow(ws).catch((error) => input.log(`console flow: ${String(error)}`));
    flows.add(running);
    void running.finally(() => flows.delete(running));
  }, input.everyMs);

  return {
    /** No new flow starts; those waiting for their link mail go on (their invitation is traffic sent). */
    stop() {
      clearInterval(timer);
    },
    busy: () => flows.size,
    async close() {
      clearInterval(timer);
      stopping = true;
      await Promise.all([...flows]);
      clearInterval(watch);
    },
  };
}
