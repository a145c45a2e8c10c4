import { accountById, type Role } from '../../domain/accounts.js';
import { DomainError } from '../../domain/errors.js';
import { acceptInvitation, previewInvitation } from '../../domain/invitation-acceptance.js';
import { createInvitation, invitationUrl, listInvitations, revokeInvitation } from '../../domain/invitations.js';
import { hashNewPassword } from '../../domain/passwords.js';
import { sendJson } from '../../http/respond.js';
import { enqueueMail } from '../../mail/outbox.js';
import { requireReader } from '../access.js';
import { signedIn, type ConsoleHandlerTable, type ConsoleRequest } from '../context.js';
import { CONSOLE_MESSAGES, ConsoleRefusal, refuse, sentence } from '../errors.js';
import { invitationMail } from '../mail/messages.js';
import { body, pathParam } from './paging.js';
import { startSession, throttled } from './session.js';

/**
 * Invitations (console-api.yaml tag "Members"): owners and admins invite by email with a role
 * (domain/invitations.ts holds the rules); the mail is written to the mail outbox in the
 * invitation's transaction and is the only place its token appears. The invited person opens the
 * link, sees what it invites to (previewInvitation, which does not use the token) and accepts it,
 * choosing a name and password when the address has no account, and is signed in.
 */

const invalidInvitation = () => new ConsoleRefusal(401, 'unauthorized', CONSOLE_MESSAGES.invalid_invitation);

async function listInvitationsHandler(request: ConsoleRequest): Promise<void> {
  const workspaceId = pathParam(request, 'workspaceId');
  await requireReader(request.deps.sql, signedIn(request).account.id, workspaceId);
  sendJson(request.res, 200, { data: await listInvitations(request.deps.sql, request.deps.clock, workspaceId), next_cursor: null });
}

async function createInvitationHandler(request: ConsoleRequest): Promise<void> {
  const workspaceId = pathParam(request, 'workspaceId');
  const { email, role } = body<{ email: string; role: Role }>(request);
  const actor = signedIn(request).account;
  const { sql, clock, config } = request.deps;
  try {
    const created = await sql.begin(async (tx) => {
      const made = await createInvitation(tx, clock, { workspaceId, actorId: actor.id, via: request.via, email, role });
      const mail = invitationMail(
        { email: made.invitation.email, role: made.invitation.role, workspaceId, workspaceName: made.workspaceName, inviterName: actor.name },
        invitationUrl(config.publicUrl, made.token),
      );
      await enqueueMail(tx, mail);
      return made.invitation;
    });
    sendJson(request.res, 201, { data: created });
  } catch (error) {
    // The only input refused here is the address (its form, or already a member).
    if (error instanceof DomainError && error.code === 'invalid_input') throw refuse.invalid(sentence(error.message), 'email');
    throw error;
  }
}

async function revokeInvitationHandler(request: ConsoleRequest): Promise<void> {
  const invitation = await revokeInvitation(request.deps.sql, request.deps.clock, {
    workspaceId: pathParam(request, 'workspaceId'),
    invitationId: pathParam(request, 'invitationId'),
    actorId: signedIn(request).account.id,
    via: request.via,
  });
  sendJson(request.res, 200, { data: invitation });
}

async function previewInvitationHandler(request: ConsoleRequest): Promise<void> {
  const { token } = body<{ token: string }>(request);
  await throttled(request, null);
  const preview = await previewInvitation(request.deps.sql, request.deps.clock, token);
  if (!preview) throw invalidInvitation();
  sendJson(request.res, 200, { data: preview });
}

async function acceptInvitationHandler(request: ConsoleRequest): Promise<void> {
  const input = body<{ token: string; name?: string; password?: string }>(request);
  await throttled(request, null);
  const { sql, clock } = request.deps;
  const preview = await previewInvitation(sql, clock, input.token);
  if (!preview) throw invalidInvitation();
  let passwordHash: string | null = null;
  if (!preview.has_account) {
    if (input.name === undefined || input.name.trim() === '') throw refuse.invalid('Your name is needed for your new account.', 'name');
    if (input.password === undefined) throw refuse.invalid('Choose a password for your new account.', 'password');
    try {
      passwordHash = await hashNewPassword(input.password);
    } catch (error) {
      if (error instanceof DomainError && error.code === 'invalid_input') throw refuse.invalid(sentence(error.message), 'password');
      throw error;
    }
  }
  const accepted = await acceptInvitation(sql, clock, {
    token: input.token,
    ip: request.via.ip,
    label: request.via.label,
    newAccount: { name: input.name, passwordHash },
  });
  if (!accepted) throw invalidInvitation();
  const account = await accountById(sql, accepted.accountId);
  if (!account) throw invalidInvitation();
  await startSession(request, account, 'invitation');
}

export const invitationHandlers: ConsoleHandlerTable = {
  listInvitations: listInvitationsHandler,
  createInvitation: createInvitationHandler,
  revokeInvitation: revokeInvitationHandler,
  previewInvitation: previewInvitationHandler,
  acceptInvitation: acceptInvitationHandler,
};
