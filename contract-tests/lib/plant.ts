/**
 * `tsx contract-tests/lib/plant.ts <regression> <out.json>`: openapi.yaml with one regression the
 * contract gates must catch planted in it (contract-tests/gate-planted-regressions.sh).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'yaml';

type Doc = Record<string, any>;
export const PLANTS: Record<string, (doc: Doc) => void> = {
  // The 405 operations the document used to carry: a client method that can only fail.
  'fake-405-operation': (d) => {
    d.paths['/offers'].post = {
      operationId: 'postOffers',
      tags: ['Offers'],
      summary: 'Not allowed (read-only API)',
      description: 'Always 405: the API is read-only.',
      security: [],
      responses: { '405': { description: 'Read-only.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } } },
    };
  },
  // A $ref into another schema's properties, as the webhook bodies had (orval: undefined type).
  'ref-into-properties': (d) => {
    d.components.schemas.SentOfferEvent.properties.data = {
      type: 'object',
      properties: { recipient_email: { $ref: '#/components/schemas/Signer/properties/email' } },
    };
  },
  // A status the code does not know: src/contract.ts must make the typecheck fail on it.
  'status-the-code-does-not-follow': (d) => {
    d.components.schemas.OfferStatus.enum.push('archived');
  },
  // An integer without format: a 32-bit integer in typed languages' generated clients.
  'integer-without-format': (d) => {
    delete d.components.schemas.Money.properties.amount.format;
  },
};

const [regression, out] = process.argv.slice(2);
const plant = PLANTS[regression ?? ''];
if (!plant || !out) {
  process.stderr.write(`usage: plant.ts <${Object.keys(PLANTS).join('|')}> <out.json>\n`);
  process.exit(2);
}
const doc = parse(readFileSync('openapi.yaml', 'utf8')) as Doc;
plant(doc);
// JSON is YAML too: a .yaml target can stand in for openapi.yaml.
writeFileSync(out, JSON.stringify(doc, null, 2));
