export { workspaceWithKey, type WorkspaceFixture } from './builders.js';

/** fetch with the key as bearer. */
export function get(url: string, key?: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (key !== undefined) headers.set('authorization', `Bearer ${key}`);
  return fetch(url, { ...init, headers });
}
