import type { Sql } from '../../db/connect.js';
import { accountById, type Account, type Role } from '../../domain/accounts.js';
import type { SignInMethod } from '../../domain/audit.js';
import { setEndpointNotices } from '../../domain/endpoint-notices.js';
import { DomainError } from '../../domain/errors.js';
import { checkCurrentPassword, setPassword, verifyPassword } from '../../domain/passwords.js';
import { createSession, endSession } from '../../domain/sessions.js';
import { useSignInLink } from '../../domain/sign-in-links.js';
import { sendEmpty, sendJson } from '../../http/respond.js';
import { signedIn, type ConsoleHandlerTable, type ConsoleRequest } from '../context.js';
import { CONSOLE_MESSAGES, ConsoleRefusal, refuse, sentence } from '../errors.js';
import { clearSessionCookie, setSessionCookie } from '../session-cookie.js';
import { body, pathParam } from './paging.js';

/** Sign-in, sign-out, the signed-in account (console-api.yaml tag "Session"). */

export interface Me {
  account: Account;
  workspaces: { id: string; name: string; role: Role; endpoint_notices: boolean }[];
}

export async function me(sql: Sql, account: Account): Promise<Me> {
  const workspaces = await sql<Me['workspaces']>`
    select w.id, w.name, m.role, m.endpoint_notices
      from memberships m
      join workspaces w on w.id = m.workspace_id
     where m.account_id = ${account.id}::uuid
     order by w.name, w.id`;
  return { account: { id: account.id, email: account.email, name: account.name }, workspaces: [...workspaces] };
}

/** Counts one attempt on `throttle` (sign-in attempts by default); 429 with Retry-After over its limit. */
export async function throttled(request: ConsoleRequest, email: string | null, throttle = request.deps.throttle): Promise<void> {
  const wait = await throttle.attempt({ email, address: request.req.ip });
  if (wait !== null) {
    request.res.set('Retry-After', String(wait));
    throw new ConsoleRefusal(429, 'rate_limited', CONSOLE_MESSAGES.rate_limited);
  }
}

/** Starts a session for `account`, sets its cookie and answers 200 with the signed-in account. */
export async function startSession(request: ConsoleRequest, account: Account, method: SignInMethod): Promise<void> {
  const { deps, req, res } = request;
  const session = await createSession(deps.sql, deps.clock, {
    accountId: account.id,
    via: request.via,
    userAgent: req.get('user-agent') ?? null,
    method,
  });
  setSessionCookie(res, session.token, deps.config.publicUrl);
  sendJson(res, 200, { data: await me(deps.sql, account) });
}

async function signIn(request: ConsoleRequest): Promise<void> {
  const { email, password } = body<{ email: string; password: string }>(request);
  await throttled(request, email);
  const account = await verifyPassword(request.deps.sql, email.trim(), password);
  if (!account) throw new ConsoleRefusal(401, 'unauthorized', CONSOLE_MESSAGES.invalid_credentials);
  await request.deps.throttle.succeeded(email);
  await startSession(request, account, 'password');
}

async function signInWithLink(request: ConsoleRequest): Promise<void> {
  const { token } = body<{ token: string }>(request);
  await throttled(request, null);
  const accountId = await useSignInLink(request.deps.sql, request.deps.clock, token);
  if (!accountId) throw new ConsoleRefusal(401, 'unauthorized', CONSOLE_MESSAGES.invalid_link);
  const account = await accountById(request.deps.sql, accountId);
  if (!account) throw new ConsoleRefusal(401, 'unauthorized', CONSOLE_MESSAGES.invalid_link);
  await startSession(request, account, 'link');
}

async function signOut(request: ConsoleRequest): Promise<void> {
  await endSession(request.deps.sql, signedIn(request).id);
  clearSessionCookie(request.res, request.deps.config.publicUrl);
  sendEmpty(request.res, 204);
}

async function getMe(request: ConsoleRequest): Promise<void> {
  sendJson(request.res, 200, { data: await me(request.deps.sql, signedIn(request).account) });
}

async function changePassword(request: ConsoleRequest): Promise<void> {
  const session = signedIn(request);
  const input = body<{ current_password: string; new_password: string }>(request);
  if (!(await checkCurrentPassword(request.deps.sql, session.account.id, input.current_password))) {
    throw refuse.invalid(CONSOLE_MESSAGES.wrong_password, 'current_password');
  }
  try {
    await setPassword(request.deps.sql, request.deps.clock, {
      accountId: session.account.id,
      password: input.new_password,
      keepSessionId: session.id,
    });
  } catch (error) {
    // The only input the domain refuses here is the new password's length.
    if (error instanceof DomainError && error.code === 'invalid_input') throw refuse.invalid(sentence(error.message), 'new_password');
    throw error;
  }
  sendEmpty(request.res, 204);
}

async function updateMyWorkspaceSettings(request: ConsoleRequest): Promise<void> {
  const { endpoint_notices: on } = body<{ endpoint_notices: boolean }>(request);
  const workspace = await setEndpointNotices(request.deps.sql, {
    workspaceId: pathParam(request, 'workspaceId'),
    accountId: signedIn(request).account.id,
    on,
  });
  sendJson(request.res, 200, { data: workspace });
}

export const sessionHandlers: ConsoleHandlerTable = { signIn, signInWithLink, signOut, getMe, changePassword, updateMyWorkspaceSettings };
