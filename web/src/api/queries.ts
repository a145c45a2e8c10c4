import { useInfiniteQuery, useQuery, type QueryKey } from '@tanstack/react-query';
import { api, call, ApiError, type Schemas } from './client';

/**
 * Server state of the console: one TanStack Query key per resource, every request through the
 * typed client. Lists are cursor pages (console-api.yaml: {data, next_cursor}) loaded with
 * "Load more".
 */

export type Me = Schemas['Me'];
export type Workspace = Me['workspaces'][number];
export type ApiKey = Schemas['ApiKey'];
export type Endpoint = Schemas['Endpoint'];
export type Delivery = Schemas['Delivery'];
export type DeliveryDetail = Schemas['DeliveryDetail'];
export type AuditEntry = Schemas['AuditEntry'];
export type EventType = Schemas['EventType'];
export type DeliveryStatus = Delivery['status'];
export type Member = Schemas['Member'];
export type Invitation = Schemas['Invitation'];
export type OfferDomain = Schemas['OfferDomain'];
export type Role = Schemas['Role'];
export type ConsoleConfig = Schemas['ConsoleConfigResponse']['data'];
export type MailboxEntry = Schemas['MailboxEntry'];
export type MailboxMail = Schemas['MailboxMailResponse']['data'];

export const ME_KEY: QueryKey = ['me'];
export const keys = {
  apiKeys: (ws: string) => ['workspace', ws, 'api-keys'],
  endpoints: (ws: string) => ['workspace', ws, 'endpoints'],
  endpoint: (ws: string, id: string) => ['workspace', ws, 'endpoints', id],
  deliveries: (ws: string) => ['workspace', ws, 'deliveries'],
  delivery: (ws: string, id: string) => ['workspace', ws, 'delivery', id],
  auditLog: (ws: string) => ['workspace', ws, 'audit-log'],
  members: (ws: string) => ['workspace', ws, 'members'],
  invitations: (ws: string) => ['workspace', ws, 'invitations'],
  offerDomain: (ws: string) => ['workspace', ws, 'offer-domain'],
};

/** The signed-in account, or null when there is no session (401 is an answer here, not an error). */
export function useMe() {
  return useQuery({
    queryKey: ME_KEY,
    queryFn: async (): Promise<Me | null> => {
      try {
        return (await call(api.GET('/me'))).data;
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) return null;
        throw error;
      }
    },
    staleTime: 60_000,
  });
}

/** How this server sends mail (console-api.yaml getConsoleConfig); asked before signing in. */
export function useConsoleConfig() {
  return useQuery({
    queryKey: ['config'],
    queryFn: async (): Promise<ConsoleConfig> => (await call(api.GET('/config'))).data,
    staleTime: Infinity,
  });
}

/** The development mailbox of the embedded default: the newest kept mails. */
export function useMailbox() {
  return useQuery({
    queryKey: ['mailbox'],
    queryFn: async () => (await call(api.GET('/mailbox'))).data,
    refetchInterval: 5_000,
  });
}

export function useMailboxMail(id: string) {
  return useQuery({
    queryKey: ['mailbox', id],
    queryFn: async (): Promise<MailboxMail> => (await call(api.GET('/mailbox/{mailId}', { params: { path: { mailId: id } } }))).data,
    enabled: id !== '',
  });
}

export function useEventTypes() {
  return useQuery({
    queryKey: ['event-types'],
    queryFn: async () => (await call(api.GET('/event-types'))).data,
    staleTime: Infinity,
  });
}

interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/** How often the delivery log and the endpoints' health refresh while the page is visible. */
const LIVE_REFRESH_MS = 10_000;

function usePages<T>(queryKey: QueryKey, fetchPage: (cursor: string | undefined) => Promise<Page<T>>, live = false) {
  const query = useInfiniteQuery({
    queryKey,
    refetchInterval: live ? LIVE_REFRESH_MS : false,
    queryFn: ({ pageParam }) => fetchPage(pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
  return { ...query, items: query.data?.pages.flatMap((page) => page.data) };
}

export function useApiKeys(ws: string) {
  return usePages(keys.apiKeys(ws), (cursor) =>
    call(api.GET('/workspaces/{workspaceId}/api-keys', { params: { path: { workspaceId: ws }, query: { cursor } } })),
  );
}

export function useEndpoints(ws: string) {
  return usePages(keys.endpoints(ws), (cursor) =>
    call(api.GET('/workspaces/{workspaceId}/endpoints', { params: { path: { workspaceId: ws }, query: { cursor } } })),
    true,
  );
}

export function useEndpoint(ws: string, id: string | undefined) {
  return useQuery({
    queryKey: keys.endpoint(ws, id ?? ''),
    enabled: id !== undefined,
    queryFn: async () =>
      (await call(api.GET('/workspaces/{workspaceId}/endpoints/{endpointId}', { params: { path: { workspaceId: ws, endpointId: id! } } }))).data,
  });
}

export interface DeliveryFilters {
  status?: DeliveryStatus;
  event_type?: string;
  endpoint_id?: string;
  since?: string;
  until?: string;
  q?: string;
}

export function useDeliveries(ws: string, filters: DeliveryFilters) {
  return usePages([...keys.deliveries(ws), filters], (cursor) =>
    call(api.GET('/workspaces/{workspaceId}/deliveries', { params: { path: { workspaceId: ws }, query: { ...filters, cursor } } })),
    true,
  );
}

export function useDelivery(ws: string, id: string) {
  return useQuery({
    queryKey: keys.delivery(ws, id),
    refetchInterval: LIVE_REFRESH_MS,
    queryFn: async () =>
      (await call(api.GET('/workspaces/{workspaceId}/deliveries/{deliveryId}', { params: { path: { workspaceId: ws, deliveryId: id } } }))).data,
  });
}

export function useAuditLog(ws: string) {
  return usePages(keys.auditLog(ws), (cursor) =>
    call(api.GET('/workspaces/{workspaceId}/audit-log', { params: { path: { workspaceId: ws }, query: { cursor } } })),
  );
}

/** Members and open invitations are each one page (console-api.yaml listMembers, listInvitations). */
export function useMembers(ws: string) {
  return useQuery({
    queryKey: keys.members(ws),
    queryFn: async () => (await call(api.GET('/workspaces/{workspaceId}/members', { params: { path: { workspaceId: ws } } }))).data,
  });
}

export function useInvitations(ws: string) {
  return useQuery({
    queryKey: keys.invitations(ws),
    queryFn: async () => (await call(api.GET('/workspaces/{workspaceId}/invitations', { params: { path: { workspaceId: ws } } }))).data,
  });
}

export function useOfferDomain(ws: string) {
  return useQuery({
    queryKey: keys.offerDomain(ws),
    queryFn: async () => (await call(api.GET('/workspaces/{workspaceId}/offer-domain', { params: { path: { workspaceId: ws } } }))).data,
  });
}
