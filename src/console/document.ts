import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { consoleApiPath } from '../paths.js';

/**
 * console-api.yaml is the source of truth of the console's API, read once at start: the parsed
 * object routes and validates requests (operations.ts), and GET /console/api/openapi.json serves
 * it with its `servers` entry naming this server's public address (config `publicUrl`).
 */
let parsed: Record<string, unknown> | undefined;

export function loadConsoleDocument(): Record<string, unknown> {
  parsed ??= Object.freeze(parse(readFileSync(consoleApiPath, 'utf8')) as Record<string, unknown>) as Record<string, unknown>;
  return parsed;
}

export function servedConsoleDocument(publicUrl: string): string {
  return JSON.stringify({
    ...loadConsoleDocument(),
    servers: [{ url: `${publicUrl}/console/api`, description: 'This server' }],
  });
}
