import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { openapiPath } from '../paths.js';

/**
 * openapi.yaml is the source of truth; the service reads it once at start. The parsed object
 * is what GET /openapi.json serves (so the served document equals the file) and what
 * openapi-backend routes and validates by.
 */
export interface OpenApiDocument {
  /** The parsed document, never mutated. */
  document: Record<string, unknown>;
  /** The JSON text served at /openapi.json. */
  json: string;
}

/**
 * Where the API lives under a server's address (openapi.yaml "Versioning": {base_url} ends with it),
 * as openapi.yaml's relative `servers` entry names it.
 */
export const API_BASE_PATH = '/api/v1';

let cached: OpenApiDocument | undefined;

export function loadOpenApiDocument(): OpenApiDocument {
  if (!cached) {
    const document = parse(readFileSync(openapiPath, 'utf8')) as Record<string, unknown>;
    cached = { document: Object.freeze(document) as Record<string, unknown>, json: JSON.stringify(document) };
  }
  return cached;
}
