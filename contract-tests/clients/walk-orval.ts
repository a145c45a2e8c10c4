/** The walk (walk.ts) with the fetch client that orval generated from the served document. */
import * as api from './generated/orval/offerdesk';
import { main, settings, type Answer, type ClientUnderTest, type OperationId } from './walk';
import type { Call } from './next-link';

const { apiKey } = settings();
// The base URL is the generated one: the served document's `servers` entry.
const init: RequestInit = { headers: { Authorization: `Bearer ${apiKey}` } };

const answer = (r: { status: number; data: unknown }): Answer => ({ status: r.status, body: r.data });

async function call(operationId: OperationId, c: Call): Promise<Answer> {
  switch (operationId) {
    case 'getWorkspace':
      return answer(await api.getWorkspace(init));
    case 'listOffers':
      return answer(await api.listOffers(c.query as api.ListOffersParams, init));
    case 'getOffer':
      return answer(await api.getOffer(c.path.id!, init));
    case 'listOfferEvents':
      return answer(await api.listOfferEvents(c.path.id!, c.query as api.ListOfferEventsParams, init));
    case 'getOpenApiDocument':
      return answer(await api.getOpenApiDocument(init));
  }
}

const generated: ClientUnderTest = {
  name: 'orval (fetch)',
  // orval also exports a URL builder per operation (get<Operation>Url); those are not calls.
  exported: Object.entries(api).filter(([name, value]) => typeof value === 'function' && !/^get.+Url$/.test(name)).map(([name]) => name),
  call,
};
await main(async () => generated);
