import { isIP } from 'node:net';
import type { Clock } from '../clock.js';
import { invalidInput, notFound } from './errors.js';

/**
 * Input checks shared by the actions. Bounds mirror the CHECK constraints of 0001_core.sql, so
 * bad input is refused with a clear message before PostgreSQL would refuse it with a cryptic one.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// Deliberately loose: one @, no spaces, a dot in the domain. Delivery decides the rest.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const HOSTNAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** An ID of the wrong form cannot name anything: it is "not found", not a database error. */
export function requireUuid(value: string, what: string): string {
  if (typeof value !== 'string' || !isUuid(value)) throw notFound(what);
  return value.toLowerCase();
}

export function requireText(value: unknown, field: string, min: number, max: number): string {
  if (typeof value !== 'string') throw invalidInput(`${field} must be a string`);
  if (value.length < min || value.length > max) {
    throw invalidInput(min > 0 ? `${field} must be ${min} to ${max} characters long` : `${field} must be at most ${max} characters long`);
  }
  return value;
}

export function optionalText(value: unknown, field: string, max: number): string | null {
  if (value === undefined || value === null) return null;
  return requireText(value, field, 0, max);
}

export function requireEmail(value: unknown, field: string): string {
  const email = requireText(value, field, 3, 254);
  if (!EMAIL.test(email)) throw invalidInput(`${field} "${email}" is not an email address`);
  return email;
}

export function requireHostname(value: unknown, field: string): string {
  const host = requireText(value, field, 1, 253);
  if (!HOSTNAME.test(host)) throw invalidInput(`${field} "${host}" is not a host name`);
  return host.toLowerCase();
}

export function requireInteger(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw invalidInput(`${field} must be a whole number from ${min} to ${max}`);
  }
  return value;
}

export function optionalIp(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || isIP(value) === 0) throw invalidInput(`ip "${String(value)}" is not an IP address`);
  return value;
}

// openapi.yaml "Conventions": timestamps live in years 0001..9999; we refuse anything outside at input.
const MIN_TIME = new Date('0001-01-01T00:00:00.000Z').getTime();
const MAX_TIME = new Date('9999-12-31T23:59:59.999Z').getTime();

export function requireTimestamp(value: unknown, field: string): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) throw invalidInput(`${field} must be a valid time`);
  if (value.getTime() < MIN_TIME || value.getTime() > MAX_TIME) {
    throw invalidInput(`${field} must lie in the years 0001 to 9999`);
  }
  return value;
}

/**
 * The time an action is recorded at: `at` (an import of a past action) or now. The future is
 * refused: a timeline records what happened.
 */
export function actionTime(clock: Clock, at: Date | undefined): Date {
  const now = clock.now();
  if (at === undefined) return now;
  requireTimestamp(at, 'at');
  if (at.getTime() > now.getTime()) throw invalidInput(`at (${at.toISOString()}) lies in the future`);
  return at;
}

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

export function requireCurrency(value: unknown, field = 'currency'): string {
  if (typeof value !== 'string' || !/^[A-Z]{3}$/.test(value) || !CURRENCIES.has(value)) {
    throw invalidInput(`${field} "${String(value)}" is not an ISO 4217 currency code`);
  }
  return value;
}

const TIME_ZONES = new Map(Intl.supportedValuesOf('timeZone').map((zone) => [zone.toLowerCase(), zone]));
// Excludes the offset forms ("+01:00") newer ICU versions accept: an IANA name is required.
const TIME_ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

/** A valid IANA time zone name, returned in its usual spelling ("europe/berlin" → "Europe/Berlin"). */
export function requireTimeZone(value: unknown): string {
  if (typeof value !== 'string' || value.length > 64 || !TIME_ZONE_NAME.test(value)) {
    throw invalidInput(`timezone "${String(value)}" is not an IANA time zone name`);
  }
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
  } catch {
    throw invalidInput(`timezone "${value}" is not an IANA time zone name`);
  }
  return TIME_ZONES.get(value.toLowerCase()) ?? value;
}
