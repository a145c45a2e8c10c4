import { Redirect, Route, Switch, useLocation } from 'wouter';
import { useMe } from './api/queries';
import { ListState } from './common/ListState';
import { NotFoundState } from './common/NotFoundState';
import { patterns, to } from './routes';
import { AcceptInvitation } from './scenes/AcceptInvitation';
import { Account } from './scenes/Account';
import { ApiKeys } from './scenes/ApiKeys';
import { AuditLog } from './scenes/AuditLog';
import { Delivery } from './scenes/Delivery';
import { Deliveries } from './scenes/Deliveries';
import { Endpoints } from './scenes/Endpoints';
import { Members } from './scenes/Members';
import { ResetPassword } from './scenes/ResetPassword';
import { Settings } from './scenes/Settings';
import { Mailbox, MailboxMail } from './scenes/Mailbox';
import { Shell } from './scenes/Shell';
import { SignIn } from './scenes/SignIn';

/** The routes, in one place. */
export function App() {
  return (
    <Switch>
      <Route path={patterns.signIn} component={SignIn} />
      <Route path={patterns.resetPassword} component={ResetPassword} />
      <Route path={patterns.invitation} component={AcceptInvitation} />
      <Route path={patterns.mailbox} component={Mailbox} />
      <Route path={patterns.mailboxMail} component={MailboxMail} />
      <Route>
        <SignedIn />
      </Route>
    </Switch>
  );
}

function SignedIn() {
  const me = useMe();
  const [location] = useLocation();
  if (me.isPending || me.isError) {
    return (
      <main className="centered">
        <ListState query={me} what="your account" />
      </main>
    );
  }
  if (!me.data) return <Redirect to={to.signIn(location)} replace />;
  const first = me.data.workspaces[0];
  return (
    <Shell me={me.data}>
      <Switch>
        <Route path={patterns.home}>
          {first ? <Redirect to={to.endpoints(first.id)} replace /> : <NoWorkspace />}
        </Route>
        <Route path={patterns.endpoints} component={Endpoints} />
        <Route path={patterns.apiKeys} component={ApiKeys} />
        <Route path={patterns.delivery} component={Delivery} />
        <Route path={patterns.deliveries} component={Deliveries} />
        <Route path={patterns.auditLog} component={AuditLog} />
        <Route path={patterns.members} component={Members} />
        <Route path={patterns.settings} component={Settings} />
        <Route path={patterns.account} component={Account} />
        <Route>
          <NotFoundState what="page" />
        </Route>
      </Switch>
    </Shell>
  );
}

function NoWorkspace() {
  return (
    <section>
      <h1 tabIndex={-1}>No workspace yet</h1>
      <p>
        Your account is not a member of any workspace. Ask an owner or admin of one to invite you, or
        have an operator create one with <code>offerdesk workspace create</code>.
      </p>
    </section>
  );
}
