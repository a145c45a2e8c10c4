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
