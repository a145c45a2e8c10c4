import { DomainError } from '../../domain/errors.js';
import { setOfferDomain, showOfferDomain, verifyOfferDomain, type OfferDomainView } from '../../domain/offer-domain.js';
import { sendJson } from '../../http/respond.js';
import { requireReader } from '../access.js';
import { signedIn, type ConsoleHandlerTable, type ConsoleRequest } from '../context.js';
import { refuse, sentence } from '../errors.js';
import { body, pathParam } from './paging.js';

/**
 * The workspace's custom offer-page domain (console-api.yaml tag "Settings"), through the same
 * domain functions as `offerdesk workspace set-offer-domain` and `verify-domain`: any member
 * reads it; only owners set and verify it (domain/offer-domain.ts DOMAIN_ROLES).
 */

function view({ workspace_id: _id, ...rest }: OfferDomainView) {
  return rest;
}

async function getOfferDomain(request: ConsoleRequest): Promise<void> {
  const workspaceId = pathParam(request, 'workspaceId');
  await requireReader(request.deps.sql, signedIn(request).account.id, workspaceId);
  sendJson(request.res, 200, { data: view(await showOfferDomain(request.deps.sql, workspaceId)) });
}

async function setOfferDomainHandler(request: ConsoleRequest): Promise<void> {
  const workspaceId = pathParam(request, 'workspaceId');
  const { domain } = body<{ domain: string | null }>(request);
  try {
    const set = await setOfferDomain(request.deps.sql, {
      workspaceId,
      domain: domain === null ? null : domain.trim(),
      actorId: signedIn(request).account.id,
      blockedSuffixes: request.deps.config.webhooks.blockedDomainSuffixes,
    });
    sendJson(request.res, 200, { data: view(set) });
  } catch (error) {
    if (error instanceof DomainError && error.code === 'invalid_input') throw refuse.invalid(sentence(error.message), 'domain');
    throw error;
  }
}

async function verifyOfferDomainHandler(request: ConsoleRequest): Promise<void> {
  const workspaceId = pathParam(request, 'workspaceId');
  const actorId = signedIn(request).account.id;
  const { sql, clock } = request.deps;
  // Without a domain the domain's refusal names the CLI's command; an owner here gets the console's words.
  const role = await requireReader(sql, actorId, workspaceId);
  if (role === 'owner' && (await showOfferDomain(sql, workspaceId)).domain === null) {
    throw refuse.invalid('This workspace has no offer domain yet. Set one, create its DNS record, then verify.');
  }
  const verified = await verifyOfferDomain(sql, clock, { workspaceId, actorId, resolver: request.deps.txtResolver });
  sendJson(request.res, 200, { data: view(verified) });
}

export const offerDomainHandlers: ConsoleHandlerTable = {
  getOfferDomain,
  setOfferDomain: setOfferDomainHandler,
  verifyOfferDomain: verifyOfferDomainHandler,
};
