import type { Queryable } from '../db/connect.js';
import { invalidInput } from './errors.js';
import { requireInteger, requireText } from './validate.js';

/** Content and pricing of an offer as the product edits it. Never leaves the service. */
export interface SectionInput {
  id: string;
  kind: 'text' | 'pricing';
  title?: string;
  body?: string;
  visible?: boolean;
  packages?: PackageInput[];
}

export interface PackageInput {
  name: string;
  /** Smallest currency unit. */
  amount: number;
  recommended?: boolean;
}

export const MAX_SECTIONS = 100;
export const MAX_PACKAGES_PER_SECTION = 20;
const MAX_AMOUNT = Number.MAX_SAFE_INTEGER;

interface SectionRow {
  offer_id: string;
  position: number;
  section_id: string;
  kind: string;
  title: string;
  body: string;
  visible: boolean;
}

interface PackageRow {
  offer_id: string;
  section_position: number;
  position: number;
  name: string;
  amount: number;
  recommended: boolean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks a sections array from a caller (or a --pricing file) against the table bounds. */
export function validateSections(input: unknown): SectionInput[] {
  if (!Array.isArray(input)) throw invalidInput('sections must be an array');
  if (input.length > MAX_SECTIONS) throw invalidInput(`an offer has at most ${MAX_SECTIONS} sections`);
  const seen = new Set<string>();
  return input.map((raw, index) => {
    const where = `sections[${index}]`;
    if (!isRecord(raw)) throw invalidInput(`${where} must be an object`);
    const id = requireText(raw.id, `${where}.id`, 1, 64);
    if (seen.has(id)) throw invalidInput(`section id "${id}" is used twice`);
    seen.add(id);
    if (raw.kind !== 'text' && raw.kind !== 'pricing') throw invalidInput(`${where}.kind must be "text" or "pricing"`);
    const title = raw.title === undefined ? '' : requireText(raw.title, `${where}.title`, 0, 500);
    const body = raw.body === undefined ? '' : requireText(raw.body, `${where}.body`, 0, 100_000);
    if (raw.visible !== undefined && typeof raw.visible !== 'boolean') throw invalidInput(`${where}.visible must be true or false`);
    const packages = raw.packages === undefined ? [] : raw.packages;
    if (!Array.isArray(packages)) throw invalidInput(`${where}.packages must be an array`);
    if (raw.kind === 'text' && packages.length > 0) throw invalidInput(`${where} is a text section and cannot hold packages`);
    if (packages.length > MAX_PACKAGES_PER_SECTION) {
      throw invalidInput(`${where} has more than ${MAX_PACKAGES_PER_SECTION} packages`);
    }
    const checked = packages.map((pkg: unknown, p: number): PackageInput => {
      const at = `${where}.packages[${p}]`;
      if (!isRecord(pkg)) throw invalidInput(`${at} must be an object`);
      if (pkg.recommended !== undefined && typeof pkg.recommended !== 'boolean') {
        throw invalidInput(`${at}.recommended must be true or false`);
      }
      return {
        name: requireText(pkg.name, `${at}.name`, 1, 200),
        amount: requireInteger(pkg.amount, `${at}.amount`, 0, MAX_AMOUNT),
        recommended: pkg.recommended === true,
      };
    });
    if (checked.filter((pkg) => pkg.recommended).length > 1) {
      throw invalidInput(`${where} has more than one recommended package`);
    }
    return { id, kind: raw.kind, title, body, visible: raw.visible !== false, packages: checked };
  });
}

/** Replaces all sections and packages of an offer (packages go with their sections, on delete cascade). */
export async function replaceSections(tx: Queryable, offerId: string, sections: SectionInput[]): Promise<void> {
  await tx`delete from offer_sections where offer_id = ${offerId}::uuid`;
  if (sections.length === 0) return;
  const sectionRows: SectionRow[] = sections.map((section, index) => ({
    offer_id: offerId,
    position: index + 1,
    section_id: section.id,
    kind: section.kind,
    title: section.title ?? '',
    body: section.body ?? '',
    visible: section.visible !== false,
  }));
  const packageRows: PackageRow[] = sections.flatMap((section, index) =>
    (section.packages ?? []).map((pkg, p) => ({
      offer_id: offerId,
      section_position: index + 1,
      position: p + 1,
      name: pkg.name,
      amount: pkg.amount,
      recommended: pkg.recommended === true,
    })),
  );
  await tx`insert into offer_sections ${tx(sectionRows, 'offer_id', 'position', 'section_id', 'kind', 'title', 'body', 'visible')}`;
  if (packageRows.length > 0) {
    await tx`insert into offer_packages ${tx(packageRows, 'offer_id', 'section_position', 'position', 'name', 'amount', 'recommended')}`;
  }
}
