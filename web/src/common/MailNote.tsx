import { Link } from 'wouter';
import { useConsoleConfig } from '../api/queries';
import { to } from '../routes';

/**
 * Where sign-in links come from on this server (console-api.yaml getConsoleConfig): the
 * development mailbox of the embedded default, or an operator when mail is off. Nothing with SMTP.
 */
export function MailNote() {
  const config = useConsoleConfig();
  const mail = config.data?.mail;
  if (!mail || mail.mode === 'smtp') return null;
  if (mail.mode === 'local') {
    return (
      <p className="hint" role="note">
        Mail is kept on this machine, not sent:{' '}
        {mail.mailbox ? <Link href={to.mailbox()}>read sign-in links and invitations in the mailbox</Link> : 'the mailbox is served only on a loopback address'}.
      </p>
    );
  }
  return (
    <p className="hint" role="note">
      This server sends no mail (SMTP_URL is not set). Ask an operator for a sign-in link:{' '}
      <code>offerdesk account sign-in-link --email you@example.com</code>
    </p>
  );
}
