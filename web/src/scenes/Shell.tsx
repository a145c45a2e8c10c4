import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link, useLocation, useRoute } from 'wouter';
import { api, call, errorMessage } from '../api/client';
import { ME_KEY, type Me } from '../api/queries';
import { sections, to } from '../routes';
import { MeContext } from '../session';

let lastWorkspaceId: string | undefined;

/** Header (workspace switcher, sections, account, "Sign out") around every signed-in page. */
export function Shell(props: { me: Me; children: ReactNode }) {
  const { me } = props;
  const [, params] = useRoute<{ workspaceId: string; rest: string }>('/w/:workspaceId/*');
  const [location, navigate] = useLocation();
  const queryClient = useQueryClient();
  // Pages outside a workspace (your account) keep the navigation of the one last shown.
  if (params?.workspaceId) lastWorkspaceId = params.workspaceId;
  const workspaceId = params?.workspaceId ?? lastWorkspaceId ?? me.workspaces[0]?.id;
  const current = me.workspaces.find((w) => w.id === workspaceId);

  const signOut = useMutation({
    mutationFn: () => call(api.DELETE('/session')),
    onSuccess: () => {
      queryClient.clear();
      queryClient.setQueryData(ME_KEY, null);
      navigate(to.signIn());
    },
  });

  function switchWorkspace(id: string) {
    // The same section in the other workspace (a delivery's page has no twin there).
    const section = (location.startsWith('/w/') && location.split('/')[3]) || 'endpoints';
    navigate(`/w/${id}/${section}`);
  }

  return (
    <MeContext.Provider value={me}>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Offerdesk</span>
        {me.workspaces.length > 0 ? (
          <label className="switcher">
            Workspace
            <select value={workspaceId ?? ''} onChange={(event) => switchWorkspace(event.target.value)}>
              {current ? null : <option value="">Choose…</option>}
              {me.workspaces.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name} ({w.role})
                </option>
              ))}
            </select>
          </label>
        ) : null}
        {workspaceId ? (
          <nav aria-label="Sections">
            <ul>
              {sections.map((s) => {
                const href = s.path(workspaceId);
                const active = location.startsWith(href.split('?')[0]!);
                return (
                  <li key={s.label}>
                    <Link href={href} aria-current={active ? 'page' : undefined}>
                      {s.label}
                    </Link>
                  </li>
                );
              })}
            </ul>
          </nav>
        ) : null}
        <div className="account">
          <Link href={to.account()} title={`${me.account.email}: your account and password`}>
            {me.account.name || me.account.email}
          </Link>
          <button type="button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
            Sign out
          </button>
          {signOut.isError ? (
            <span role="alert" className="error">
              {errorMessage(signOut.error)}
            </span>
          ) : null}
        </div>
      </header>
      {current && current.role === 'member' ? (
        <p className="readonly-note" role="note">
          You are a member of {current.name}: you can look at everything here, but only owners and admins can
          change it.
        </p>
      ) : null}
      <main id="main">{props.children}</main>
    </MeContext.Provider>
  );
}
