/**
 * The one error type of the product's actions and of webhook management, and the one table of
 * its codes. Each code names one refusal, as fastify's `FST_ERR_*` codes do: its kind (`code`,
 * what the console's error body says), its HTTP status in the console, what the CLI does with it
 * (every refusal: its message on one line and exit code 2) and its message template. Anything
 * else thrown by a domain function is unexpected (the console's 500, the CLI's exit code 1).
 */

/** `limit_reached`: a limit of console-api.yaml "Limits" (endpoints, workspaces, tests, resends). */
export type DomainErrorKind = 'not_found' | 'invalid_transition' | 'invalid_input' | 'forbidden' | 'limit_reached';

/** The CLI's exit code for every refusal (cli/context.ts EXIT_BAD_INPUT). */
const CLI_REFUSED = 2;

interface ErrorSpec<A extends unknown[]> {
  kind: DomainErrorKind;
  /** The console's answer status (console/errors.ts). */
  http: number;
  /** The CLI's exit code; the message is printed as one line on stderr. */
  cliExit: number;
  message: (...args: A) => string;
}

const spec = <A extends unknown[]>(kind: DomainErrorKind, http: number, message: (...args: A) => string): ErrorSpec<A> => ({
  kind,
  http,
  cliExit: CLI_REFUSED,
  message,
});

export const DOMAIN_ERRORS = {
  OD_ERR_NOT_FOUND: spec('not_found', 404, (what: string) => `${what} not found`),
  OD_ERR_INVALID_INPUT: spec('invalid_input', 400, (reason: string) => reason),
  OD_ERR_INVALID_TRANSITION: spec('invalid_transition', 400, (reason: string) => reason),
  OD_ERR_FORBIDDEN: spec('forbidden', 403, (reason: string) => reason),
  /** console-api.yaml "Endpoint addresses": an address rule refused the endpoint's address. */
  OD_ERR_ENDPOINT_ADDRESS: spec('invalid_input', 400, (reason: string) => `endpoint address refused: ${reason}`),
  /** console-api.yaml "Limits": endpoints per workspace. */
  OD_ERR_ENDPOINTS_PER_WORKSPACE: spec(
    'limit_reached',
    409,
    (workspaceId: string, max: number) => `workspace ${workspaceId} already has ${max} endpoints (the limit)`,
  ),
  /** console-api.yaml "Limits": workspaces in which one account may create endpoints. */
  OD_ERR_WORKSPACES_PER_ACCOUNT: spec(
    'limit_reached',
    409,
    (accountId: string | null, max: number) =>
      `account ${accountId} already has endpoints in ${max} workspaces (the limit; paused endpoints count)`,
  ),
  /** console-api.yaml "Limits": test events. */
  OD_ERR_TEST_EVENTS: spec(
    'limit_reached',
    409,
    (endpointId: string, max: number, minutes: number) =>
      `endpoint ${endpointId} has had ${max} tests in the last ${minutes} minutes (the limit); try again later`,
  ),
  /** openapi.yaml "Webhook delivery and retries": a failed delivery "can be resent ... up to 5 times". */
  OD_ERR_RESENDS_PER_DELIVERY: spec(
    'limit_reached',
    409,
    (deliveryId: string, max: number) => `delivery ${deliveryId} was already resent ${max} times (the limit)`,
  ),
  /** docs/webhook-delivery.md "Limits": open deliveries per endpoint, for a resend of many. */
  OD_ERR_OPEN_DELIVERIES_PER_ENDPOINT: spec(
    'limit_reached',
    409,
    (resendable: number, endpointId: string, room: number, max: number) =>
      `${resendable} failed deliveries would be resent but endpoint ${endpointId} has room for ${room} more open deliveries (at most ${max}); choose a later time or wait`,
  ),
} as const;

export type DomainErrorId = keyof typeof DOMAIN_ERRORS;
type ArgsOf<I extends DomainErrorId> = Parameters<(typeof DOMAIN_ERRORS)[I]['message']>;

export class DomainError extends Error {
  override name = 'DomainError';
  /** The kind of refusal (DOMAIN_ERRORS[errorCode].kind): what the console's error body says. */
  readonly code: DomainErrorKind;

  constructor(
    /** The precise code of DOMAIN_ERRORS (`OD_ERR_*`). */
    readonly errorCode: DomainErrorId,
    message: string,
  ) {
    super(message);
    this.code = DOMAIN_ERRORS[errorCode].kind;
  }

  /** The console's HTTP status for this refusal. */
  get httpStatus(): number {
    return DOMAIN_ERRORS[this.errorCode].http;
  }

  /** The CLI's exit code for this refusal. */
  get cliExit(): number {
    return DOMAIN_ERRORS[this.errorCode].cliExit;
  }
}

/** The refusal `id` with its message template filled in. */
export function domainError<I extends DomainErrorId>(id: I, ...args: ArgsOf<I>): DomainError {
  const entry = DOMAIN_ERRORS[id];
  return new DomainError(id, (entry.message as (...a: ArgsOf<I>) => string)(...args));
}

export const notFound = (what: string): DomainError => domainError('OD_ERR_NOT_FOUND', what);
export const invalidInput = (message: string): DomainError => domainError('OD_ERR_INVALID_INPUT', message);
export const invalidTransition = (message: string): DomainError => domainError('OD_ERR_INVALID_TRANSITION', message);
export const forbidden = (message: string): DomainError => domainError('OD_ERR_FORBIDDEN', message);
