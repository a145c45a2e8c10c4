import { Fragment } from 'react';
import { Link, useParams } from 'wouter';
import { ApiError } from '../api/client';
import { useMailbox, useMailboxMail } from '../api/queries';
import { EmptyState, ListState } from '../common/ListState';
import { NotFoundState } from '../common/NotFoundState';
import { Time } from '../common/Time';
import { to } from '../routes';

/**
 * The development mailbox of the embedded default (`npm start` without SMTP_URL and without
 * DATABASE_URL): mail is kept on this machine instead of being sent, and read here, signed in or
 * not, so a sign-in link can be opened before anyone has a session. Anywhere else the server
 * answers 404 and this page says there is no mailbox.
 */
export function Mailbox() {
  const list = useMailbox();
  if (list.error instanceof ApiError && list.error.status === 404) {
    return (
      <main id="main" className="mailbox">
        <h1 tabIndex={-1}>No mailbox on this server</h1>
        <p>This server sends its mail (or has mail switched off); the mailbox exists only on the embedded default.</p>
      </main>
    );
  }
  return (
    <main id="main" className="mailbox">
      <h1 tabIndex={-1}>Mailbox (this machine only)</h1>
      <p className="hint">
        Mail is not sent on the embedded default: sign-in links, invitations and endpoint notices are kept here. Set
        SMTP_URL to send them.
      </p>
      <ListState query={list} what="the mailbox" />
      {list.data && list.data.length === 0 ? (
        <EmptyState>
          <p>No mail yet.</p>
        </EmptyState>
      ) : null}
      {list.data && list.data.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Received</th>
              <th scope="col">To</th>
              <th scope="col">Subject</th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((mail) => (
              <tr key={mail.id}>
                <td>
                  <Time at={mail.at} seconds />
                </td>
                <td>{mail.to}</td>
                <td>
                  <Link href={to.mailboxMail(mail.id)}>{mail.subject}</Link>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </main>
  );
}

const LINK = /(https?:\/\/[^\s<>"]+)/g;

/** The plain-text body with its links made clickable (the HTML body is not rendered here). */
function TextWithLinks(props: { text: string }) {
  const parts = props.text.split(LINK);
  return (
    <pre className="mail-body">
      {parts.map((part, i) => (i % 2 === 1 ? <a key={i} href={part}>{part}</a> : <Fragment key={i}>{part}</Fragment>))}
    </pre>
  );
}

export function MailboxMail() {
  const { mailId = '' } = useParams<{ mailId: string }>();
  const mail = useMailboxMail(mailId);
  if (mail.isError) return <main id="main"><NotFoundState what="mail" /></main>;
  return (
    <main id="main" className="mailbox">
      <p>
        <Link href={to.mailbox()}>← Mailbox</Link>
      </p>
      <ListState query={mail} what="the mail" />
      {mail.data ? (
        <article aria-labelledby="mail-subject">
          <h1 id="mail-subject" tabIndex={-1}>
            {mail.data.subject}
          </h1>
          <dl className="facts">
            <div>
              <dt>To</dt>
              <dd>{mail.data.to}</dd>
            </div>
            <div>
              <dt>Received</dt>
              <dd>
                <Time at={mail.data.at} seconds />
              </dd>
            </div>
          </dl>
          <TextWithLinks text={mail.data.text} />
        </article>
      ) : null}
    </main>
  );
}
