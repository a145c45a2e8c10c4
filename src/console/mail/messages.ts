import type { MailDraft } from '../../mail/outbox.js';
import { SIGN_IN_LINK_TTL_MS } from '../../domain/sign-in-links.js';
import { INVITATION_TTL_MS } from '../../domain/invitations.js';
import type { Role } from '../../domain/accounts.js';
import { MINUTE, DAY } from '../../clock.js';
import { renderHtml, renderText, type MailBody } from './layout.js';

/**
 * The mails of the console's self-service (docs/console.md "Signing in", "Members"). Each is
 * composed here and written to the mail outbox in the transaction that made its link, so a link
 * exists exactly when its mail will be sent. The link's token is in the mail only.
 */

const LINK_MINUTES = SIGN_IN_LINK_TTL_MS / MINUTE;
const INVITATION_DAYS = INVITATION_TTL_MS / DAY;

function draft(kind: MailDraft['kind'], to: string, subject: string, body: MailBody, workspaceId: string | null = null): MailDraft {
  // Names in a subject come from people and may hold a line break; a subject is one line.
  const line = subject.replace(/\s+/g, ' ').trim();
  return { kind, to, subject: line, text: renderText(body), html: renderHtml(body), workspaceId };
}

export function signInLinkMail(to: { email: string; name: string }, url: string): MailDraft {
  return draft('sign_in_link', to.email, 'Your Offerdesk sign-in link', {
    lead: [`Hello ${to.name},`, 'someone (we hope you) asked for a link to sign in to the Offerdesk console.'],
    action: 'Sign in to Offerdesk',
    url,
    after: [
      `The link works once, within ${LINK_MINUTES} minutes.`,
      'If you did not ask for it, ignore this mail: nobody can sign in without the link.',
    ],
  });
}

export function passwordResetMail(to: { email: string; name: string }, url: string): MailDraft {
  return draft('password_reset', to.email, 'Reset your Offerdesk password', {
    lead: [`Hello ${to.name},`, 'someone (we hope you) asked to set a new password for your Offerdesk account.'],
    action: 'Choose a new password',
    url,
    after: [
      `The link works once, within ${LINK_MINUTES} minutes. Setting a new password signs you out everywhere else.`,
      'If you did not ask for it, ignore this mail: your password stays as it is.',
    ],
  });
}

const ROLE_WORDS: Record<Role, string> = { owner: 'an owner', admin: 'an admin', member: 'a member' };

export function invitationMail(
  input: { email: string; role: Role; workspaceId: string; workspaceName: string; inviterName: string },
  url: string,
): MailDraft {
  return draft(
    'invitation',
    input.email,
    `${input.inviterName} invited you to ${input.workspaceName} on Offerdesk`,
    {
      lead: [
        'Hello,',
        `${input.inviterName} invited you to join the workspace "${input.workspaceName}" on Offerdesk as ${ROLE_WORDS[input.role]}.`,
      ],
      action: 'Accept the invitation',
      url,
      after: [
        `The invitation is valid for ${INVITATION_DAYS} days and works once. Without an account yet, you choose your name and password when you accept.`,
        'If you do not expect it, ignore this mail.',
      ],
    },
    input.workspaceId,
  );
}
