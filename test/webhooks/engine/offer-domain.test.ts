import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../src/domain/accounts.js';
import { DomainError } from '../../../src/domain/errors.js';
import { setOfferDomain, verifyOfferDomain, type TxtResolver } from '../../../src/domain/offer-domain.js';
import { checkOfferDomain } from '../../../src/domain/offer-domain-rules.js';
import { projectRoot } from '../../../src/paths.js';
import { offerdeskArgs } from '../../support/offerdesk-command.js';
import { addEndpoint } from '../../../src/webhooks/management/endpoints.js';
import { MASTER_KEY, memberOf, useEngineFixture, workspace } from './helpers.js';

/**
 * A workspace's offer-page domain must not block other tenants: public suffixes, hosting
 * platforms and the service's own domains are refused, and a domain refuses endpoints only once
 * its TXT record proved the workspace controls it.
 */
const f = useEngineFixture();

function dns(answers: Record<string, string[][]>): TxtResolver & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async resolveTxt(name) {
      asked.push(name);
      const answer = answers[name];
      if (!answer) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
      return answer;
    },
  };
}

function refusalOf(run: () => unknown): DomainError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('expected a refusal');
}

async function asyncRefusal(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(() => new Error('expected a refusal'), (e: unknown) => e);
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}

const addOn = (ws: { workspaceId: string; ownerId: string }, url: string) =>
  addEndpoint(f.manage, { workspaceId: ws.workspaceId, url, events: ['offer.sent'], actorId: ws.ownerId });

describe('which domains may be claimed', () => {
  it.each(['co.uk', 'com.au', 'github.io', 'blogspot.com', 's3.amazonaws.com'])('refuses the public suffix %s', (domain) => {
    expect(refusalOf(() => checkOfferDomain(domain)).message).toMatch(/is a public suffix \(Public Suffix List\)/);
  });

  it.each([
    ['agency.herokuapp.com', 'herokuapp.com'],
    ['offers.offerdesk.com', 'offerdesk.com'],
    ['offerdesk.com', 'offerdesk.com'],
    ['x.vercel.app', 'vercel.app'],
  ])('refuses %s under the platform or service domain %s', (domain, suffix) => {
    expect(refusalOf(() => checkOfferDomain(domain)).message).toContain(`is under ${suffix}, a hosting-platform or service domain`);
  });

  it('refuses an operator-blocked suffix, an IP address and a non-name', () => {
    expect(refusalOf(() => checkOfferDomain('offers.blocked.example', ['blocked.example'])).message).toMatch(/under blocked\.example/);
    expect(refusalOf(() => checkOfferDomain('203.0.113.9')).message).toMatch(/IP address/);
    expect(refusalOf(() => checkOfferDomain('not a host')).message).toMatch(/not a host name/);
  });

  it('accepts a registrable domain and its subdomains, stored lowercase without a trailing dot', () => {
    expect(checkOfferDomain('Offers.Kunde.DE.')).toBe('offers.kunde.de');
    expect(checkOfferDomain('agency.co.uk')).toBe('agency.co.uk');
  });

  it('workspace creation applies the same rules (co.uk was accepted before)', async () => {
    const error = await asyncRefusal(createWorkspace(f.sql, f.clock, { name: 'W', timezone: 'UTC', currency: 'EUR', offerDomain: 'co.uk' }));
    expect(error.message).toMatch(/public suffix/);
  });
});

describe('verification by a DNS TXT record', () => {
  it('an unverified domain refuses no endpoint; once verified it refuses every workspace’s endpoints under it', async () => {
    const claimer = await workspace(f);
    const other = await workspace(f);
    // a.hooks.test resolves to the test receiver (webhookConfig's dev resolve), so only the
    // offer-domain rule can refuse it.
    const view = await setOfferDomain(f.sql, { workspaceId: claimer.workspaceId, domain: 'a.hooks.test', actorId: claimer.ownerId });
    expect(view).toMatchObject({ domain: 'a.hooks.test', verified: false, verified_at: null });
    expect(view.record).toEqual({ name: '_offerdesk-verify.a.hooks.test', type: 'TXT', value: expect.stringMatching(/^offerdesk-verify=[0-9a-f]{32}$/) });

    await addOn(other, 'https://a.hooks.test/one');

    const resolver = dns({ [view.record!.name]: [['v=spf1 -all'], [view.record!.value]] });
    const verified = await verifyOfferDomain(f.sql, f.clock, { workspaceId: claimer.workspaceId, actorId: claimer.ownerId, resolver });
    expect(verified).toMatchObject({ verified: true, verified_at: f.clock.now().toISOString() });
    expect(resolver.asked).toEqual(['_offerdesk-verify.a.hooks.test']);

    const error = await asyncRefusal(addOn(other, 'https://a.hooks.test/two'));
    expect(error.message).toMatch(/custom offer-page domain/);
  });

  it('refuses verification without the record, with another token, or when DNS fails; a value split in chunks counts', async () => {
    const ws = await workspace(f);
    const view = await setOfferDomain(f.sql, { workspaceId: ws.workspaceId, domain: 'offers.kunde.test', actorId: ws.ownerId });
    const name = view.record!.name;
    const verify = (resolver: TxtResolver) => verifyOfferDomain(f.sql, f.clock, { workspaceId: ws.workspaceId, actorId: ws.ownerId, resolver });

    expect((await asyncRefusal(verify(dns({})))).message).toMatch(/^no TXT record _offerdesk-verify\.offers\.kunde\.test with value "offerdesk-verify=[0-9a-f]{32}" found \(0 TXT record\(s\) there\)/);
    const wrongToken = dns({ [name]: [['offerdesk-verify=0123456789abcdef0123456789abcdef']] });
    expect((await asyncRefusal(verify(wrongToken))).message).toMatch(/\(1 TXT record\(s\) there\)/);
    const failing: TxtResolver = { resolveTxt: async () => Promise.reject(Object.assign(new Error('timeout'), { code: 'ETIMEOUT' })) };
    expect((await asyncRefusal(verify(failing))).message).toMatch(/the DNS lookup of _offerdesk-verify\.offers\.kunde\.test failed \(ETIMEOUT\)/);
    const [row] = await f.sql<{ v: Date | null }[]>`select offer_domain_verified_at as v from workspaces where id = ${ws.workspaceId}::uuid`;
    expect(row!.v).toBeNull();

    const value = view.record!.value;
    const chunked = await verify(dns({ [name]: [[value.slice(0, 10), value.slice(10)]] }));
    expect(chunked.verified).toBe(true);
  });

  it('a new domain starts unverified with a new token; the same domain again keeps its verification; --clear removes it', async () => {
    const ws = await workspace(f, { offerDomain: 'a.hooks.test' });
    await asyncRefusal(addOn(await workspace(f), 'https://a.hooks.test/x'));
    const same = await setOfferDomain(f.sql, { workspaceId: ws.workspaceId, domain: 'A.hooks.test', actorId: ws.ownerId });
    expect(same.verified).toBe(true);
    const moved = await setOfferDomain(f.sql, { workspaceId: ws.workspaceId, domain: 'offers.second.test', actorId: ws.ownerId });
    expect(moved).toMatchObject({ domain: 'offers.second.test', verified: false });
    expect(moved.record!.value).not.toBe(same.record!.value);
    // The old domain no longer refuses anything.
    await addOn(await workspace(f), 'https://a.hooks.test/x');
    const cleared = await setOfferDomain(f.sql, { workspaceId: ws.workspaceId, domain: null, actorId: ws.ownerId });
    expect(cleared).toEqual({ workspace_id: ws.workspaceId, domain: null, verified: false, verified_at: null, record: null });
  });

  it('only owners set or verify the domain; a domain another workspace holds is refused', async () => {
    const ws = await workspace(f);
    const admin = await memberOf(f, ws.workspaceId, 'admin');
    const refused = await asyncRefusal(setOfferDomain(f.sql, { workspaceId: ws.workspaceId, domain: 'offers.admin.test', actorId: admin }));
    expect(refused.code).toBe('forbidden');
    expect((await asyncRefusal(verifyOfferDomain(f.sql, f.clock, { workspaceId: ws.workspaceId, actorId: admin, resolver: dns({}) }))).code).toBe('forbidden');

    await workspace(f, { offerDomain: 'offers.taken.test' });
    const taken = await asyncRefusal(setOfferDomain(f.sql, { workspaceId: ws.workspaceId, domain: 'offers.taken.test', actorId: ws.ownerId }));
    expect(taken.message).toMatch(/already used by another workspace/);
  });
});

describe('offerdesk workspace set-offer-domain / verify-domain', () => {
  const run = promisify(execFile);
  async function offerdesk(...args: string[]) {
    try {
      const { stdout, stderr } = await run(process.execPath, offerdeskArgs(...args), {
        cwd: projectRoot,
        env: { ...process.env, DATABASE_URL: f.db.url, OFFERDESK_MASTER_KEY: MASTER_KEY },
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  }

  it('prints the TXT record to create on one line, and refuses a public suffix with exit code 2', async () => {
    const ws = await workspace(f);
    const set = await offerdesk('workspace', 'set-offer-domain', '--workspace', ws.workspaceId, '--domain', 'offers.cli.test', '--as', ws.ownerId);
    expect(set.code).toBe(0);
    expect(set.stdout).toMatch(
      new RegExp(
        `^offer domain offers\\.cli\\.test of workspace ${ws.workspaceId} is not verified yet: create the DNS record ` +
          `_offerdesk-verify\\.offers\\.cli\\.test TXT "offerdesk-verify=[0-9a-f]{32}", then run: ` +
          `offerdesk workspace verify-domain --workspace ${ws.workspaceId} --as ${ws.ownerId}\\n$`,
      ),
    );
    const refused = await offerdesk('workspace', 'set-offer-domain', '--workspace', ws.workspaceId, '--domain', 'co.uk', '--as', ws.ownerId);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^offerdesk: offer domain "co\.uk" is a public suffix[^\n]*\n$/);
    // No TXT record exists for a .test name: refused on one line, nothing verified.
    const verify = await offerdesk('workspace', 'verify-domain', '--workspace', ws.workspaceId, '--as', ws.ownerId);
    expect(verify.code).toBe(2);
    expect(verify.stderr).toMatch(/^offerdesk: (no TXT record|the DNS lookup of) _offerdesk-verify\.offers\.cli\.test[^\n]*\n$/);
  }, 60_000);
});
