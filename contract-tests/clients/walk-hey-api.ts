/** The walk (walk.ts) with the fetch client that @hey-api/openapi-ts generated from the served document. */
import { client } from './generated/hey-api/client.gen';
import * as sdk from './generated/hey-api/sdk.gen';
import type { ListOfferEventsData, ListOffersData } from './generated/hey-api/types.gen';
import { main, settings, type Answer, type ClientUnderTest, type OperationId } from './walk';
import type { Call } from './next-link';

const { apiKey } = settings();
// The base URL is the generated default: the served document's `servers` entry.
client.setConfig({ headers: { Authorization: `Bearer ${apiKey}` } });

const answer = (r: { data?: unknown; error?: unknown; response: Response }): Answer => ({
  status: r.response.status,
  body: r.data ?? r.error,
});

async function call(operationId: OperationId, c: Call): Promise<Answer> {
  switch (operationId) {
    case 'getWorkspace':
      return answer(await sdk.getWorkspace());
    case 'listOffers':
      return answer(await sdk.listOffers({ query: c.query as ListOffersData['query'] }));
    case 'getOffer':
      return answer(await sdk.getOffer({ path: { id: c.path.id! } }));
    case 'listOfferEvents':
      return answer(await sdk.listOfferEvents({ path: { id: c.path.id! }, query: c.query as ListOfferEventsData['query'] }));
    case 'getOpenApiDocument':
      return answer(await sdk.getOpenApiDocument());
  }
}

const generated: ClientUnderTest = {
  name: '@hey-api/openapi-ts',
  exported: Object.entries(sdk).filter(([, value]) => typeof value === 'function').map(([name]) => name),
  call,
};
await main(async () => generated);
