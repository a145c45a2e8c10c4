import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { expect } from 'vitest';
import { openapiPath } from '../../../src/paths.js';

/**
 * Validates webhook bodies against the `webhooks` section of openapi.yaml, the contract of what is
 * sent: the whole document is added as one schema so its $refs resolve as written.
 */
const DOCUMENT_ID = 'https://offerdesk.test/openapi.json';
const ajv = new Ajv2020.default({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema({ ...parse(readFileSync(openapiPath, 'utf8')), $id: DOCUMENT_ID });

export function verifyBody(type: string, body: unknown): void {
  const pointer = `#/webhooks/${type}/post/requestBody/content/application~1json/schema`;
  const validate = ajv.getSchema(`${DOCUMENT_ID}${pointer}`);
  if (!validate) throw new Error(`openapi.yaml has no webhook schema at ${pointer}`);
  const valid = validate(body);
  expect(validate.errors ?? [], `body of ${type} against openapi.yaml`).toEqual([]);
  expect(valid).toBe(true);
}
