import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, call, errorMessage, ApiError } from '../api/client';
import { keys, useOfferDomain, type OfferDomain } from '../api/queries';
import { Badge } from '../common/Badge';
import { CopyButton } from '../common/CopyButton';
import { ListState } from '../common/ListState';
import { NotFoundState } from '../common/NotFoundState';
import { PageHeading } from '../common/PageHeading';
import { Time } from '../common/Time';
import { useCurrentWorkspace, type CurrentWorkspace } from '../session';

/**
 * The workspace's settings: its custom offer-page domain (`offerdesk workspace set-offer-domain`
 * and `verify-domain` in the console). Once verified by a DNS TXT record, no webhook endpoint of
 * any workspace may use the domain. Only owners change it: it reaches every tenant's endpoints.
 */
export function Settings() {
  const workspace = useCurrentWorkspace();
  if (!workspace) return <NotFoundState what="workspace" />;
  return <SettingsOf workspace={workspace} />;
}

function SettingsOf(props: { workspace: CurrentWorkspace }) {
  const { workspace } = props;
  const domain = useOfferDomain(workspace.id);
  const isOwner = workspace.role === 'owner';
  return (
    <section>
      <PageHeading title="Settings" sub={<p className="hint">{workspace.name}</p>} />
      <div className="card">
        <h2>Offer-page domain</h2>
        <p className="lead">
          The domain your offer pages are served under, such as <code>offers.your-company.com</code>. Once you prove you control it with a
          DNS record, no webhook endpoint may use it or its subdomains.
        </p>
        {isOwner ? null : <p className="hint">Only owners of this workspace can change the domain.</p>}
        <ListState query={domain} what="the offer domain" />
        {domain.data ? <DomainState workspaceId={workspace.id} view={domain.data} isOwner={isOwner} /> : null}
        {domain.data && isOwner ? <DomainForm workspaceId={workspace.id} current={domain.data.domain} /> : null}
      </div>
    </section>
  );
}

function DomainState(props: { workspaceId: string; view: OfferDomain; isOwner: boolean }) {
  const { view } = props;
  const queryClient = useQueryClient();
  const verify = useMutation({
    mutationFn: async () =>
      (await call(api.POST('/workspaces/{workspaceId}/offer-domain/verify', { params: { path: { workspaceId: props.workspaceId } } }))).data,
    onSuccess: (data) => queryClient.setQueryData(keys.offerDomain(props.workspaceId), data),
  });
  if (!view.domain || !view.record) return <p>No offer domain is set.</p>;
  return (
    <>
      <dl className="facts">
        <div>
          <dt>Domain</dt>
          <dd>
            <code>{view.domain}</code>
          </dd>
        </div>
        <div>
          <dt>Status</dt>
          <dd>{view.verified ? <Badge tone="good">verified</Badge> : <Badge tone="wait">not verified</Badge>}</dd>
        </div>
        {view.verified ? (
          <div>
            <dt>Verified</dt>
            <dd>
              <Time at={view.verified_at} />
            </dd>
          </div>
        ) : null}
      </dl>
      {view.verified ? null : (
        <>
          <h3>Create this DNS record at your DNS provider</h3>
          <table className="dns-record middle">
            <caption className="visually-hidden">The DNS record that verifies the domain</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">Value</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <td>
                  <code>{view.record.name}</code> <CopyButton value={view.record.name} label="Copy name" />
                </td>
                <td>
                  <code>{view.record.type}</code>
                </td>
                <td>
                  <code>{view.record.value}</code> <CopyButton value={view.record.value} label="Copy value" />
                </td>
              </tr>
            </tbody>
          </table>
          <p className="hint">DNS changes can take a while to appear. Then check the record:</p>
          {verify.isError ? (
            <p role="alert" className="error">
              {errorMessage(verify.error)}
            </p>
          ) : null}
          {props.isOwner ? (
            <div className="actions">
              <button type="button" className="primary" disabled={verify.isPending} onClick={() => verify.mutate()}>
                {verify.isPending ? 'Checking…' : 'Verify domain'}
              </button>
            </div>
          ) : null}
        </>
      )}
      <div role="status">{verify.isSuccess ? <p className="notice">The domain is verified.</p> : null}</div>
    </>
  );
}

function DomainForm(props: { workspaceId: string; current: string | null }) {
  const queryClient = useQueryClient();
  const [domain, setDomain] = useState(props.current ?? '');
  const save = useMutation({
    mutationFn: async (value: string | null) =>
      (await call(api.PUT('/workspaces/{workspaceId}/offer-domain', { params: { path: { workspaceId: props.workspaceId } }, body: { domain: value } })))
        .data,
    onSuccess: (data) => {
      queryClient.setQueryData(keys.offerDomain(props.workspaceId), data);
      setDomain(data.domain ?? '');
    },
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate(domain.trim());
  }
  const param = save.error instanceof ApiError ? save.error.param : undefined;
  return (
    <form onSubmit={submit} className="domain-form">
      <label htmlFor="offer-domain">{props.current ? 'Change the domain' : 'Domain'}</label>
      <div className="row">
        <input
          id="offer-domain"
          required
          maxLength={253}
          placeholder="offers.your-company.com"
          value={domain}
          onChange={(e) => setDomain(e.target.value)}
          aria-invalid={param === 'domain' || undefined}
        />
        <button type="submit" className="primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save domain'}
        </button>
        {props.current ? (
          <button type="button" className="danger" disabled={save.isPending} onClick={() => save.mutate(null)}>
            Remove domain
          </button>
        ) : null}
      </div>
      <p className="hint">A new domain starts unverified, with a new DNS record to create.</p>
      {save.isError ? (
        <p role="alert" className="error">
          {errorMessage(save.error)}
        </p>
      ) : null}
    </form>
  );
}
