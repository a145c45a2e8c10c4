/**
 * The one error type of the product's actions. The CLI turns it into exit code 2 with its
 * message on one line; anything else thrown by a domain function is unexpected.
 */
/** `limit_reached`: a limit of SPEC.md "Webhook limits" (endpoints, workspaces, tests, resends). */
export type DomainErrorCode = 'not_found' | 'invalid_transition' | 'invalid_input' | 'forbidden' | 'limit_reached';

export class DomainError extends Error {
  override name = 'DomainError';

  constructor(
    readonly code: DomainErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export const notFound = (what: string): DomainError => new DomainError('not_found', `${what} not found`);
export const invalidInput = (message: string): DomainError => new DomainError('invalid_input', message);
export const invalidTransition = (message: string): DomainError => new DomainError('invalid_transition', message);
export const forbidden = (message: string): DomainError => new DomainError('forbidden', message);
export const limitReached = (message: string): DomainError => new DomainError('limit_reached', message);
