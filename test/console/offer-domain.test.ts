import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TxtResolver } from '../../src/domain/offer-domain.js';
import { startTestApi, type TestApi } from '../support/api-server.js';
import { CONSOLE_TEST_ENV, consoleWorld, type ConsoleWorld } from './helpers.js';

/**
 * The offer-domain settings (console-api.yaml tag "Settings"), as `offerdesk workspace
 * set-offer-domain` and `verify-domain`: the DNS answers come from a table the test fills.
 */
const dns = new Map<string, string[][]>();
const resolver: TxtResolver = {
  async resolveTxt(name) {
    const records = dns.get(name);
    if (!records) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    return records;
  },
};

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ env: CONSOLE_TEST_ENV, txtResolver: resolver });
});
afterAll(async () => api?.close());

const path = (w: ConsoleWorld) => `/workspaces/${w.workspaceId}/offer-domain`;
let n = 0;

describe('the offer domain', () => {
  it('an owner sets a domain and is shown the TXT record; verifying with the record there marks it verified', async () => {
    const w = await consoleWorld(api);
    n += 1;
    const domain = `offers${n}.agency.example`;
    expect((await w.member.client.call('GET', path(w))).body.data).toEqual({ domain: null, verified: false, verified_at: null, record: null });
    const set = await w.owner.client.call('PUT', path(w), { body: { domain } });
    expect(set.status).toBe(200);
    const record = set.body.data.record;
    expect(record).toEqual({ name: `_offerdesk-verify.${domain}`, type: 'TXT', value: expect.stringMatching(/^offerdesk-verify=/) });
    expect(set.body.data.verified).toBe(false);

    const missing = await w.owner.client.call('POST', `${path(w)}/verify`);
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toMatch(/No TXT record/);

    dns.set(record.name, [['v=spf1 -all'], [record.value.slice(0, 10), record.value.slice(10)]]);
    const verified = await w.owner.client.call('POST', `${path(w)}/verify`);
    expect(verified.status).toBe(200);
    expect(verified.body.data).toMatchObject({ domain, verified: true, verified_at: api.clock.now().toISOString() });
    expect((await w.member.client.call('GET', path(w))).body.data.verified).toBe(true);

    const cleared = await w.owner.client.call('PUT', path(w), { body: { domain: null } });
    expect(cleared.body.data).toEqual({ domain: null, verified: false, verified_at: null, record: null });
  });

  it('only owners set and verify: admins and members 403, another workspace 404', async () => {
    const w = await consoleWorld(api);
    expect((await w.admin.client.call('PUT', path(w), { body: { domain: 'offers.admin.example' } })).status).toBe(403);
    expect((await w.member.client.call('PUT', path(w), { body: { domain: 'offers.member.example' } })).status).toBe(403);
    expect((await w.admin.client.call('POST', `${path(w)}/verify`)).status).toBe(403);
    expect((await w.outsider.client.call('GET', path(w))).status).toBe(404);
    expect((await w.outsider.client.call('PUT', path(w), { body: { domain: 'offers.outsider.example' } })).status).toBe(404);
  });

  it('refuses a public suffix and a domain of another workspace at the domain field; verifying without a domain says to set one', async () => {
    const w = await consoleWorld(api);
    const suffix = await w.owner.client.call('PUT', path(w), { body: { domain: 'co.uk' } });
    expect(suffix.status).toBe(400);
    expect(suffix.body.error.param).toBe('domain');
    n += 1;
    const taken = `taken${n}.agency.example`;
    expect((await w.outsider.client.call('PUT', `/workspaces/${w.outsiderWorkspaceId}/offer-domain`, { body: { domain: taken } })).status).toBe(200);
    const clash = await w.owner.client.call('PUT', path(w), { body: { domain: taken } });
    expect(clash.status).toBe(400);
    expect(clash.body.error.message).toMatch(/already used/);
    const none = await w.owner.client.call('POST', `${path(w)}/verify`);
    expect(none.status).toBe(400);
    expect(none.body.error.message).toMatch(/no offer domain yet/);
  });
});
