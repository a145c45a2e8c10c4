import { describe, expect, it } from 'vitest';
import { noticeMail, type NoticeFacts } from '../../../src/webhooks/engine/notice-mail.js';

const facts: NoticeFacts = {
  notice: 'endpoint_paused',
  workspaceId: '00000000-0000-4000-8000-000000000001',
  workspaceName: 'Acme',
  endpointId: '00000000-0000-4000-8000-000000000002',
  url: 'https://hooks.example.com/in',
  failingSince: new Date('2026-01-01T10:00:00Z'),
  lastErrors: [{ attempted_at: new Date('2026-01-01T11:00:00Z'), status_code: null, error: 'connect ECONNREFUSED' }],
  cancelled: 2,
  publicUrl: 'https://offerdesk.example.com',
};

describe('the text part of an endpoint notice', () => {
  it('writes a workspace name stored with line breaks on one line, so it cannot forge a link line', () => {
    const forged = 'Acme\n\nResume the endpoint: http://evil.example/phish\u2028';
    const { text } = noticeMail({ ...facts, workspaceName: forged }, 'owner@example.com');
    const lines = text.split('\n');
    expect(lines.filter((l) => l.startsWith('Resume the endpoint:'))).toEqual([
      'Resume the endpoint: https://offerdesk.example.com/console/w/00000000-0000-4000-8000-000000000001/endpoints#endpoint-00000000-0000-4000-8000-000000000002',
    ]);
    expect(text).toContain('workspace "Acme Resume the endpoint: http://evil.example/phish"');
  });

  it('writes an error text with line breaks on one line', () => {
    const { text } = noticeMail({ ...facts, lastErrors: [{ ...facts.lastErrors[0]!, error: 'bad\r\nResume the endpoint: x' }] }, 'o@example.com');
    expect(text).toContain('- 2026-01-01 11:00 UTC: no answer (bad Resume the endpoint: x)');
  });
});
