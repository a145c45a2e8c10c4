import { describe, expect, it } from 'vitest';
import { DOMAIN_ERRORS, DomainError, domainError, notFound, type DomainErrorId } from '../../src/domain/errors.js';

describe('the table of domain error codes', () => {
  it('gives every limit refusal of console-api.yaml "Limits" its own code, answered 409 and exit code 2', () => {
    const limits = (Object.keys(DOMAIN_ERRORS) as DomainErrorId[]).filter((id) => DOMAIN_ERRORS[id].kind === 'limit_reached');
    expect(limits).toEqual([
      'OD_ERR_ENDPOINTS_PER_WORKSPACE',
      'OD_ERR_WORKSPACES_PER_ACCOUNT',
      'OD_ERR_TEST_EVENTS',
      'OD_ERR_RESENDS_PER_DELIVERY',
      'OD_ERR_OPEN_DELIVERIES_PER_ENDPOINT',
    ]);
    for (const id of limits) expect([DOMAIN_ERRORS[id].http, DOMAIN_ERRORS[id].cliExit]).toEqual([409, 2]);
  });

  it('answers each kind with the console status it had before the table', () => {
    const statusOf = (id: DomainErrorId) => DOMAIN_ERRORS[id].http;
    expect(statusOf('OD_ERR_NOT_FOUND')).toBe(404);
    expect(statusOf('OD_ERR_FORBIDDEN')).toBe(403);
    expect(statusOf('OD_ERR_INVALID_INPUT')).toBe(400);
    expect(statusOf('OD_ERR_INVALID_TRANSITION')).toBe(400);
    expect(statusOf('OD_ERR_ENDPOINT_ADDRESS')).toBe(400);
  });

  it('fills the code’s message template and carries code, kind, status and exit code', () => {
    const error = domainError('OD_ERR_ENDPOINTS_PER_WORKSPACE', 'w1', 5);
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({
      errorCode: 'OD_ERR_ENDPOINTS_PER_WORKSPACE',
      code: 'limit_reached',
      message: 'workspace w1 already has 5 endpoints (the limit)',
      httpStatus: 409,
      cliExit: 2,
    });
    expect(notFound('offer x')).toMatchObject({ errorCode: 'OD_ERR_NOT_FOUND', code: 'not_found', message: 'offer x not found' });
  });
});
