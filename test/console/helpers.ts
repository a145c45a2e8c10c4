import { randomBytes } from 'node:crypto';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { OpenAPIBackend, type Document } from 'openapi-backend';
import { afterAll, beforeAll } from 'vitest';
import { loadConsoleDocument } from '../../src/console/document.js';
import type { ManualClock } from '../../src/clock.js';
import type { Sql } from '../../src/db/connect.js';
import { addMember, createAccount, createWorkspace, type Role } from '../../src/domain/accounts.js';
import { setPassword } from '../../src/domain/passwords.js';
import { startTestApi, type TestApi } from '../support/api-server.js';

/** The master key and the development resolver the endpoint tests need (no DNS, no key file). */
export const CONSOLE_TEST_ENV = {
  OFFERDESK_MASTER_KEY: randomBytes(32).toString('base64'),
  OFFERDESK_WEBHOOK_DEV_RESOLVE: 'hooks.test=127.0.0.1:8443,other.test=127.0.0.1:8443',
  // Every person of a test file signs in from 127.0.0.1; the throttle's own test sets its limits.
  CONSOLE_SIGN_IN_PER_ADDRESS: '100000',
};

export const PASSWORD = 'correct horse battery staple';

export interface ConsoleAnswer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/**
 * Every answer a test receives is checked against console-api.yaml: its status must be one the
 * operation documents and its JSON body must match that response's schema (the in-process
 * counterpart of Prism in front of the public API's tests).
 */
const contract = new OpenAPIBackend({
  definition: structuredClone(loadConsoleDocument()) as unknown as Document,
  apiRoot: '/console/api',
  quick: true,
  customizeAjv: (_ajv, options) => {
    const ajv = new Ajv2020.default({ ...options, strict: false, allErrors: true });
    addFormats.default(ajv);
    return ajv as never;
  },
});
contract.init();

export function checkAgainstContract(method: string, path: string, status: number, body: unknown): void {
  const operation = contract.router.matchOperation({ method, path: path.split('?')[0]!, headers: {}, query: {} } as never);
  if (!operation) return;
  const responses = (operation.responses ?? {}) as Record<string, unknown>;
  if (!responses[String(status)]) throw new Error(`${operation.operationId} answered ${status}, which console-api.yaml does not document`);
  if (body === null) return;
  const result = contract.validator.validateResponse(body, operation, status);
  if (result.errors?.length) {
    throw new Error(
      `${operation.operationId} ${status} does not match console-api.yaml: ${JSON.stringify(result.errors.slice(0, 3))}; ` +
        `body ${JSON.stringify(body).slice(0, 300)}`,
    );
  }
}

/**
 * The Origin a browser showing the console sends: the public URL's when OFFERDESK_PUBLIC_URL is set
 * (the console is opened there, in front of the server), else the address the test talks to.
 */
export function consoleOrigin(api: TestApi): string {
  return api.config.publicUrlSet ? new URL(api.config.publicUrl).origin : api.origin;
}

/** A browser-like client of one person: it keeps the session cookie and sends the console's Origin. */
export class ConsoleClient {
  cookie: string | null = null;

  constructor(private readonly api: TestApi) {}

  async call(
    method: string,
    path: string,
    options: { body?: unknown; headers?: Record<string, string>; raw?: string } = {},
  ): Promise<ConsoleAnswer> {
    const headers = new Headers({ origin: consoleOrigin(this.api), ...options.headers });
    if (this.cookie) headers.set('cookie', this.cookie);
    let payload: string | undefined = options.raw;
    if (options.body !== undefined) {
      payload = JSON.stringify(options.body);
      if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    }
    const response = await fetch(`${this.api.origin}/console/api${path}`, { method, headers, body: payload, redirect: 'manual' });
    const setCookie = response.headers.getSetCookie().find((c) => c.startsWith('offerdesk_session='));
    if (setCookie) {
      const value = setCookie.split(';')[0]!;
      this.cookie = value === 'offerdesk_session=' ? null : value;
    }
    const text = await response.text();
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = null;
    }
    checkAgainstContract(method, `/console/api${path}`, response.status, body);
    return { status: response.status, headers: response.headers, body, text };
  }

  async signIn(email: string, password = PASSWORD): Promise<ConsoleAnswer> {
    return this.call('POST', '/session', { body: { email, password } });
  }
}

export interface Person {
  id: string;
  email: string;
  client: ConsoleClient;
}

export interface ConsoleWorld {
  workspaceId: string;
  owner: Person;
  admin: Person;
  member: Person;
  /** An owner of another workspace, not a member of this one. */
  outsider: Person;
  outsiderWorkspaceId: string;
  /** No session at all. */
  anonymous: ConsoleClient;
}

let counter = 0;

export async function person(api: TestApi, sql: Sql, clock: ManualClock, label: string): Promise<Person> {
  counter += 1;
  const email = `${label}${counter}-${randomBytes(3).toString('hex')}@agency.example`;
  const { id } = await createAccount(sql, clock, { email, name: `${label} ${counter}` });
  await setPassword(sql, clock, { accountId: id, password: PASSWORD });
  return { id, email, client: new ConsoleClient(api) };
}

/** A workspace with an owner, an admin and a member, plus an outsider with a workspace of their own; all signed in. */
export async function consoleWorld(api: TestApi): Promise<ConsoleWorld> {
  const { sql } = api.db;
  const clock = api.clock;
  const [owner, admin, member, outsider] = await Promise.all(
    ['owner', 'admin', 'member', 'outsider'].map((label) => person(api, sql, clock, label)),
  );
  const { id: workspaceId } = await createWorkspace(sql, clock, {
    name: `Agency ${counter}`,
    timezone: 'Europe/Berlin',
    currency: 'EUR',
    ownerAccountId: owner!.id,
  });
  for (const [who, role] of [
    [admin!, 'admin'],
    [member!, 'member'],
  ] as [Person, Role][]) {
    await addMember(sql, clock, { actorId: null, workspaceId, accountId: who.id, role });
  }
  const { id: outsiderWorkspaceId } = await createWorkspace(sql, clock, {
    name: `Elsewhere ${counter}`,
    timezone: 'Europe/Berlin',
    currency: 'EUR',
    ownerAccountId: outsider!.id,
  });
  for (const p of [owner!, admin!, member!, outsider!]) {
    const answer = await p.client.signIn(p.email);
    if (answer.status !== 200) throw new Error(`sign-in of ${p.email} failed: ${answer.status} ${answer.text}`);
  }
  return { workspaceId, owner: owner!, admin: admin!, member: member!, outsider: outsider!, outsiderWorkspaceId, anonymous: new ConsoleClient(api) };
}

/** One server per test file over a fresh database, with a manual clock. */
export function useConsoleApi(env: Record<string, string> = {}): { readonly api: TestApi } {
  const holder = {} as { api: TestApi };
  beforeAll(async () => {
    holder.api = await startTestApi({ env: { ...CONSOLE_TEST_ENV, ...env } });
  });
  afterAll(async () => holder.api?.close());
  return holder;
}
