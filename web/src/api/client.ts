import createClient from 'openapi-fetch';
import type { components, paths } from '../../../generated/console-api';

/**
 * The one client of the management API, typed from console-api.yaml (generated/console-api.ts):
 * a renamed field fails `npm run typecheck`, not the page. The session is the HttpOnly cookie the
 * browser sends by itself; no token is kept in script reach.
 */
export const api = createClient<paths>({ baseUrl: '/console/api', credentials: 'same-origin' });

export type Schemas = components['schemas'];

export interface ErrorBody {
  error?: { code?: string; message?: string; param?: string };
}

/** An error answer of the management API, carrying its code, message and the field it names. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param?: string,
  ) {
    super(message);
  }
}

const FALLBACK: Record<number, string> = {
  401: 'Your session has ended. Sign in again.',
  403: 'Only owners and admins of this workspace can do that.',
  404: 'Not found. It may have been removed, or it belongs to a workspace you are not a member of.',
  429: 'Too many attempts. Wait a minute, then try again.',
  500: 'The server failed to answer. Try again; if it keeps failing, tell the operator.',
};

/**
 * openapi-fetch answers {data} or {error}; pages want a value or a thrown ApiError whose message
 * says what to do next. A network failure becomes one too.
 */
export async function call<T>(request: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await request;
  } catch {
    throw new ApiError(0, 'network', 'The server could not be reached. Check that it is running, then try again.');
  }
  const { data, error, response } = result;
  if (response.ok) return data as T;
  const body = (error ?? {}) as ErrorBody;
  const message = body.error?.message ?? FALLBACK[response.status] ?? `The server answered ${response.status}. Try again.`;
  throw new ApiError(response.status, body.error?.code ?? 'unknown', message, body.error?.param);
}

export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  return 'Something went wrong in the page. Reload it and try again.';
}
