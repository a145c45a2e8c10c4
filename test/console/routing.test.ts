import { describe, expect, it } from 'vitest';
import { createConsoleOperations, CONSOLE_HANDLER_TABLES } from '../../src/console/operations.js';
import { loadConsoleDocument } from '../../src/console/document.js';
import { checkAgainstContract } from './helpers.js';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

function documentOperationIds(): string[] {
  const paths = loadConsoleDocument().paths as Record<string, Record<string, { operationId?: string }>>;
  return Object.values(paths).flatMap((item) => METHODS.filter((m) => item[m]).map((m) => item[m]!.operationId!));
}

describe('console routing by operationId', () => {
  it('has a handler for every operation of console-api.yaml and an operation for every handler', () => {
    const handled = Object.keys(Object.assign({}, ...CONSOLE_HANDLER_TABLES)).concat('getConsoleApiDocument');
    expect(handled.sort()).toEqual(documentOperationIds().sort());
  });

  it('routes every operation of the document (none silently dropped)', () => {
    const { api } = createConsoleOperations({} as never);
    expect(api.getOperations().map((op) => op.operationId).sort()).toEqual(documentOperationIds().sort());
  });

  it('the tests check every answer against the document', () => {
    expect(() => checkAgainstContract('GET', '/console/api/me', 200, { data: { account: { id: 'x' } } })).toThrow(/does not match/);
    expect(() => checkAgainstContract('GET', '/console/api/me', 418, null)).toThrow(/does not document/);
  });
});

describe('methods a path does not list', () => {
  it('answers 405 with the methods it does list', async () => {
    const { startTestApi } = await import('../support/api-server.js');
    const api = await startTestApi();
    try {
      for (const [path, allow] of [
        ['/session', 'POST, DELETE'],
        ['/me', 'GET'],
      ] as const) {
        const answer = await fetch(`${api.origin}/console/api${path}`, { method: 'PUT', headers: { origin: api.origin } });
        expect(answer.status).toBe(405);
        expect(answer.headers.get('allow')).toBe(allow);
        expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('method_not_allowed');
      }
    } finally {
      await api.close();
    }
  });
});

describe('a path with a malformed percent escape', () => {
  it('answers 404 with the not-found body, as the public API does, and logs no error', async () => {
    const { startTestApi } = await import('../support/api-server.js');
    const { capturedLogger } = await import('../mail/helpers.js');
    const { ConsoleClient, person } = await import('./helpers.js');
    const log = capturedLogger();
    const api = await startTestApi({ logger: log.logger });
    try {
      const someone = await person(api, api.db.sql, api.clock, 'escape');
      expect((await someone.client.signIn(someone.email)).status).toBe(200);
      const notFound = { error: { code: 'not_found', message: 'Resource not found.' } };
      for (const path of ['/workspaces/%E0%A4%A/members', '/workspaces/%zz/api-keys', '/%E0%A4%A']) {
        const answer = await someone.client.call('GET', path);
        expect({ path, status: answer.status, body: answer.body }).toEqual({ path, status: 404, body: notFound });
      }
      // Without a session a workspace's path is 401 before its ID is looked at, malformed or not.
      expect((await new ConsoleClient(api).call('GET', '/workspaces/%E0%A4%A/members')).status).toBe(401);
      expect(log.lines.filter((line) => JSON.parse(line).level >= 50)).toEqual([]);
      expect(log.lines.join('')).not.toContain('URIError');
    } finally {
      await api.close();
    }
  });
});
