/**
 * What an integrator does with a client generated from the served document, done with each
 * generator's client (walk-hey-api.ts, walk-orval.ts): read the workspace, walk every page of
 * /offers without and with each `status` (following the next-page link as a generic client does,
 * next-link.ts), read one offer and walk its timeline. Each generated method must be called with
 * a 2xx answer at least once: no method can only fail. Exits non-zero with the reason otherwise.
 */
import { nextCall, type Call } from './next-link.js';

export type OperationId = 'getWorkspace' | 'listOffers' | 'getOffer' | 'listOfferEvents' | 'getOpenApiDocument';
export interface Answer {
  status: number;
  body: unknown;
}
export interface ClientUnderTest {
  name: string;
  /** The functions the generated client exports, by name. */
  exported: string[];
  call(operationId: OperationId, call: Call): Promise<Answer>;
}

interface Page {
  data: { id: string; status?: string; created_at?: string; sequence?: number }[];
  next_cursor: string | null;
}

export async function walk(client: ClientUnderTest, expectedOffers: number): Promise<void> {
  const answered = new Set<string>();
  const call = async (operationId: OperationId, request: Call): Promise<unknown> => {
    const answer = await client.call(operationId, request);
    if (answer.status < 200 || answer.status > 299) {
      throw new Error(`${client.name}: ${operationId} ${JSON.stringify(request)} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    }
    answered.add(operationId);
    return answer.body;
  };

  const doc = (await call('getOpenApiDocument', { path: {}, query: {} })) as Record<string, any>;
  await call('getWorkspace', { path: {}, query: {} });

  async function walkList(operationId: 'listOffers' | 'listOfferEvents', first: Call): Promise<Page['data']> {
    const items: Page['data'] = [];
    let request: Call | null = first;
    let pages = 0;
    while (request) {
      const page = (await call(operationId, request)) as Page;
      items.push(...page.data);
      request = nextCall(doc, operationId, request, page);
      if (++pages > 10_000) throw new Error(`${client.name}: ${operationId} never reached a last page`);
    }
    return items;
  }

  const all = await walkList('listOffers', { path: {}, query: {} });
  const ids = new Set(all.map((o) => o.id));
  if (all.length !== expectedOffers || ids.size !== expectedOffers) {
    throw new Error(`${client.name}: walking /offers gave ${all.length} offers (${ids.size} distinct), expected ${expectedOffers}`);
  }
  for (let i = 1; i < all.length; i++) {
    const [a, b] = [all[i - 1]!, all[i]!];
    if (a.created_at! < b.created_at! || (a.created_at === b.created_at && a.id < b.id)) {
      throw new Error(`${client.name}: /offers is not ordered by created_at, id descending at ${i}`);
    }
  }

  let filtered = 0;
  for (const status of doc.components.schemas.OfferStatus.enum as string[]) {
    const offers = await walkList('listOffers', { path: {}, query: { status } });
    const wrong = offers.filter((o) => o.status !== status || !ids.has(o.id));
    if (wrong.length > 0) throw new Error(`${client.name}: status=${status} walk returned ${wrong.length} other offers`);
    filtered += offers.length;
    process.stdout.write(`${client.name}: status=${status}: ${offers.length} offers\n`);
  }
  if (filtered !== expectedOffers) {
    throw new Error(`${client.name}: the walks by status gave ${filtered} offers in all, expected ${expectedOffers}`);
  }

  const offer = all.find((o) => o.status === 'accepted') ?? all[0]!;
  const one = (await call('getOffer', { path: { id: offer.id }, query: {} })) as { data: { id: string } };
  if (one.data.id !== offer.id) throw new Error(`${client.name}: getOffer returned another offer`);
  // Small pages, so that the timeline has several and its next-page link is followed too.
  const timeline = await walkList('listOfferEvents', { path: { id: offer.id }, query: { limit: 2 } });
  if (timeline.length < 3 || timeline.some((e, i) => e.sequence !== i + 1)) {
    throw new Error(`${client.name}: the timeline of ${offer.id} is not 1..n in order: ${timeline.map((e) => e.sequence)}`);
  }

  const operations = Object.values(doc.paths as Record<string, Record<string, { operationId?: string }>>)
    .flatMap((item) => Object.values(item).map((op) => op.operationId))
    .filter((id): id is string => typeof id === 'string')
    .sort();
  const generated = client.exported.filter((name) => operations.includes(name)).sort();
  const onlyFailing = operations.filter((id) => !answered.has(id));
  if (JSON.stringify(generated) !== JSON.stringify(operations) || onlyFailing.length > 0) {
    throw new Error(
      `${client.name}: generated methods [${generated}] for operations [${operations}]; never answered 2xx: [${onlyFailing}]`,
    );
  }
  process.stdout.write(
    `${client.name}: walked ${all.length} offers and ${filtered} by status, a timeline of ${timeline.length} entries; ` +
      `every generated method [${generated}] answered 2xx\n`,
  );
}

export function settings(): { apiKey: string; expectedOffers: number } {
  const apiKey = process.env.CONTRACT_API_KEY;
  const expectedOffers = Number(process.env.CONTRACT_SEED_OFFERS);
  if (!apiKey || !expectedOffers) throw new Error('run through contract-tests/gate-clients.sh (CONTRACT_API_KEY, CONTRACT_SEED_OFFERS)');
  return { apiKey, expectedOffers };
}

export async function main(client: () => Promise<ClientUnderTest>): Promise<void> {
  try {
    await walk(await client(), settings().expectedOffers);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  }
}
