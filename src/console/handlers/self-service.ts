import { accountById } from '../../domain/accounts.js';
import { DomainError } from '../../domain/errors.js';
import { resetPassword } from '../../domain/password-reset.js';
import { createLinkForEmail, passwordResetUrl, signInLinkUrl, type LinkPurpose } from '../../domain/sign-in-links.js';
import { sendEmpty } from '../../http/respond.js';
import { enqueueMail } from '../../mail/outbox.js';
import type { ConsoleHandlerTable, ConsoleRequest } from '../context.js';
import { CONSOLE_MESSAGES, ConsoleRefusal, refuse, sentence } from '../errors.js';
import { passwordResetMail, signInLinkMail } from '../mail/messages.js';
import { body } from './paging.js';
import { startSession, throttled } from './session.js';

/**
 * "Email me a sign-in link" and "Forgot your password?" (docs/console.md "Signing in"). Asking
 * answers 202 with no body whether or not the address has an account, after the same work (one
 * statement that makes a link only for an account, in one transaction with its mail), so neither
 * the answer nor its time tells which addresses exist. Asking is throttled per email and per
 * client address (throttle.ts, purpose `mail`). The token is written only into the mail.
 */

const MAILS = {
  sign_in: { url: signInLinkUrl, mail: signInLinkMail },
  password_reset: { url: passwordResetUrl, mail: passwordResetMail },
} as const;

async function mailLink(request: ConsoleRequest, purpose: LinkPurpose): Promise<void> {
  const { email } = body<{ email: string }>(request);
  await throttled(request, email, request.deps.mailThrottle);
  const { sql, clock, config } = request.deps;
  await sql.begin(async (tx) => {
    // A transaction that writes waits at commit for its WAL to reach the disk; one that writes
    // nothing (an unknown address) does not, and the difference (milliseconds to tens of them)
    // would tell the two apart. Without that wait both answer alike. A crash in the moment after
    // may lose the link and its mail, both or neither (the commit stays atomic); asking again helps.
    await tx`set local synchronous_commit = off`;
    const link = await createLinkForEmail(tx, clock, { email, purpose });
    if (link) await enqueueMail(tx, MAILS[purpose].mail(link.account, MAILS[purpose].url(config.publicUrl, link.token)));
  });
  sendEmpty(request.res, 202);
}

async function requestSignInLink(request: ConsoleRequest): Promise<void> {
  await mailLink(request, 'sign_in');
}

async function requestPasswordReset(request: ConsoleRequest): Promise<void> {
  await mailLink(request, 'password_reset');
}

async function resetPasswordHandler(request: ConsoleRequest): Promise<void> {
  const { token, new_password } = body<{ token: string; new_password: string }>(request);
  await throttled(request, null);
  let reset: Awaited<ReturnType<typeof resetPassword>>;
  try {
    reset = await resetPassword(request.deps.sql, request.deps.clock, { token, password: new_password });
  } catch (error) {
    // The only input the domain refuses here is the new password's length.
    if (error instanceof DomainError && error.code === 'invalid_input') throw refuse.invalid(sentence(error.message), 'new_password');
    throw error;
  }
  if (!reset) throw new ConsoleRefusal(401, 'unauthorized', CONSOLE_MESSAGES.invalid_reset_link);
  const account = await accountById(request.deps.sql, reset.accountId);
  if (!account) throw new ConsoleRefusal(401, 'unauthorized', CONSOLE_MESSAGES.invalid_reset_link);
  await startSession(request, account, 'password_reset');
}

export const selfServiceHandlers: ConsoleHandlerTable = {
  requestSignInLink,
  requestPasswordReset,
  resetPassword: resetPasswordHandler,
};
