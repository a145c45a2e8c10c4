import type { MailDraft } from '../../mail/outbox.js';
import { SIGN_IN_LINK_TTL_MS } from '../../domain/sign-in-links.js';
import { INVITATION_TTL_MS } from '../../domain/invitations.js';
import type { Role } from '../../domain/accounts.js';
import { MINUTE, DAY } from '../../clock.js';
import { oneLine } from '../../domain/names.js';
import { renderHtml, renderText, type MailBody } from './layout.js';

/**
 * The mails of the console's self-service (docs/console.md "Signing in", "Members"). Each is
 * composed here and written to the mail outbox in the transaction that made its link, so a link
 * exists exactly when its mail will be sent. The link's token is in the mail only.
 */

const LINK_MINUTES = SIGN_IN_LINK_TTL_MS / MINUTE;
const INVITATION_DAYS = INVITATION_TTL_MS / DAY;

/**
 * Every value from a person (a name, a workspace name) goes into a mail through oneLine: a line
 * break in it could otherwise add lines of its own to the plain-text part, such as a second
 * "Accept the invitation:" with another address above the real one, and a subject is one line.
 * New names with such characters are refused (domain/names.ts); names stored before are
 * collapsed here.
 */
function draft(kind: MailDraft['kind'], to: string, subject: string, body: MailBody, workspaceId: string | null = null): MailDraft {
  return { kind, to, subject: oneLine(subject), text: renderText(body), html: renderHtml(body), workspaceId };
}

export function signInLinkMail(to: { email: string; name: string }, url: string): MailDraft {
  return draft('sign_in_link', to.email, 'Your Offerdesk sign-in link', {
    lead: [`Hello ${oneLine(to.name)},`, 'someone (we hope you) asked for a link to sign in to the Offerdesk console.'],
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
    lead: [`Hello ${oneLine(to.name)},`, 'someone (we hope you) asked to set a new password for your Offerdesk account.'],
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
  const inviterName = oneLine(input.inviterName);
  const workspaceName = oneLine(input.workspaceName);
  return draft(
    'invitation',
    input.email,
    `${inviterName} invited you to ${workspaceName} on Offerdesk`,
    {
      lead: [
        'Hello,',
        `${inviterName} invited you to join the workspace "${workspaceName}" on Offerdesk as ${ROLE_WORDS[input.role]}.`,
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
