/**
 * Every address of the console, relative to /console (the Router's base). app.tsx maps the
 * patterns to pages; pages build links with the functions, so a path changes in one place.
 */
export const patterns = {
  signIn: '/sign-in',
  resetPassword: '/reset-password',
  invitation: '/invitation',
  home: '/',
  apiKeys: '/w/:workspaceId/api-keys',
  endpoints: '/w/:workspaceId/endpoints',
  deliveries: '/w/:workspaceId/deliveries',
  delivery: '/w/:workspaceId/deliveries/:deliveryId',
  auditLog: '/w/:workspaceId/audit-log',
  members: '/w/:workspaceId/members',
  settings: '/w/:workspaceId/settings',
  account: '/account',
  mailbox: '/mailbox',
  mailboxMail: '/mailbox/:mailId',
} as const;

export const to = {
  signIn: (next?: string) => (next && next !== '/' ? `/sign-in?next=${encodeURIComponent(next)}` : '/sign-in'),
  apiKeys: (ws: string) => `/w/${ws}/api-keys`,
  endpoints: (ws: string) => `/w/${ws}/endpoints`,
  deliveries: (ws: string, filters: Record<string, string | undefined> = {}) => {
    const set = Object.entries(filters).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '');
    const query = new URLSearchParams(set).toString();
    return `/w/${ws}/deliveries${query ? `?${query}` : ''}`;
  },
  delivery: (ws: string, id: string) => `/w/${ws}/deliveries/${id}`,
  auditLog: (ws: string) => `/w/${ws}/audit-log`,
  members: (ws: string) => `/w/${ws}/members`,
  settings: (ws: string) => `/w/${ws}/settings`,
  resetPassword: () => '/reset-password',
  account: () => '/account',
  mailbox: () => '/mailbox',
  mailboxMail: (id: string) => `/mailbox/${id}`,
};

/** The sections of a workspace, in the order of the navigation. */
export const sections = [
  { label: 'Webhook endpoints', path: to.endpoints },
  { label: 'Delivery log', path: (ws: string) => to.deliveries(ws) },
  { label: 'API keys', path: to.apiKeys },
  { label: 'Audit log', path: to.auditLog },
  { label: 'Members', path: to.members },
  { label: 'Settings', path: to.settings },
] as const;
