import { randomBytes } from 'node:crypto';

/** The value a workspace puts into its domain's TXT record to show it controls the domain. */
export function offerDomainToken(): string {
  return randomBytes(16).toString('hex');
}
