import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { parse } from 'yaml';

/**
 * Citations of a document section, and the sections each document offers (docs/contract.md
 * "Citations").
 *
 * A citation is a file name followed by a section name in double quotes:
 *   - the file is a path ending in `.md` (from the repository root, or from the citing file's
 *     folder), or `openapi.yaml` or `console-api.yaml`, optionally in backticks;
 *   - then white space, which may be a line break followed by the next line's comment marker
 *     (` * `, `// `, `-- `, `# `), so a citation wrapped in a comment still counts;
 *   - then the section in double quotes, on one line or wrapped once the same way. Leading `#`s
 *     are ignored (`"## Methods"` cites the heading "Methods").
 *
 * The sections of a Markdown text are its headings (outside code fences), without the `#`s, and
 * its bold lead-ins: a line (or list item) that starts with `**Label**`, which names the section
 * "Label" (a trailing `.` or `:` and a trailing parenthesis dropped, so `**Graceful stop.**` and
 * `**Speed (2026 runs).**` are "Graceful stop" and "Speed"). The
 * sections of the two YAML contracts are the Markdown sections inside any of their `description`
 * strings (the introduction, the tags, the operations), their tag names, their operationIds and
 * the names of their components (schemas, parameters, responses, headers), since those are what a
 * reader finds in the rendered reference.
 */

export interface Citation {
  file: string;
  line: number;
  target: string;
  section: string;
  text: string;
}

export interface Problem {
  citation: Citation;
  reason: string;
}

/** Where citations are looked for, from the repository root. */
export const CITING_ROOTS = [
  'src',
  'test',
  'docs',
  'web/src',
  'scripts',
  'contract-tests',
  'deploy',
  'README.md',
  'openapi.yaml',
  'console-api.yaml',
  'redocly.yaml',
];
const TEXT_FILE = /\.(ts|tsx|js|mjs|cjs|sql|md|ya?ml|sh|py|toml|json)$/;
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'generated', 'reports', '.venv', '__pycache__']);

const CONTINUATION = String.raw`[ \t]*\n[ \t]*(?:\*|\/\/|--|#)?[ \t]*`;
const CITATION = new RegExp(
  String.raw`(?<![\w./-])\x60?((?:[\w.-]+\/)*[\w.-]+\.md|openapi\.yaml|console-api\.yaml)\x60?` +
    String.raw`(?:[ \t]+|${CONTINUATION})` +
    String.raw`"([^"\n]+(?:${CONTINUATION}[^"\n]+)?)"`,
  'g',
);

export function findCitations(file: string, text: string): Citation[] {
  const found: Citation[] = [];
  for (const match of text.matchAll(CITATION)) {
    const section = match[2]!
      .replace(new RegExp(CONTINUATION, 'g'), ' ')
      .replace(/^#+\s*/, '')
      .trim();
    found.push({
      file,
      line: text.slice(0, match.index).split('\n').length,
      target: match[1]!,
      section,
      text: match[0].replace(new RegExp(CONTINUATION, 'g'), ' '),
    });
  }
  return found;
}

function markdownHeadings(text: string): string[] {
  const headings: string[] = [];
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    else if (!fenced) {
      const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
      const leadIn = /^\s*(?:[-*]\s+)?\*\*([^*]+)\*\*/.exec(line);
      if (heading) headings.push(heading[1]!);
      else if (leadIn) headings.push(leadIn[1]!.trim().replace(/[.:]$/, '').replace(/\s*\([^)]*\)$/, '').trim());
    }
  }
  return headings;
}

function contractSections(text: string): string[] {
  const doc = parse(text) as Record<string, unknown>;
  const sections: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === 'description' && typeof value === 'string') sections.push(...markdownHeadings(value));
        else if (key === 'operationId' && typeof value === 'string') sections.push(value);
        else walk(value);
      }
    }
  };
  walk(doc);
  for (const tag of (doc.tags ?? []) as { name: string }[]) sections.push(tag.name);
  for (const group of Object.values((doc.components ?? {}) as Record<string, unknown>)) {
    if (group && typeof group === 'object') sections.push(...Object.keys(group));
  }
  return sections;
}

/** The sections of a cited file, or null when it does not exist. */
export function sectionsOf(root: string, path: string): string[] | null {
  const full = join(root, path);
  if (!existsSync(full) || !statSync(full).isFile()) return null;
  const text = readFileSync(full, 'utf8');
  return path.endsWith('.md') ? markdownHeadings(text) : contractSections(text);
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(above + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

export function nearest(section: string, sections: string[], count = 3): string[] {
  const wanted = section.toLowerCase();
  // Words compared by their first four letters, so "retry" meets "retries"; camelCase names split.
  const stems = (text: string) => text.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase().split(/\W+/).filter(Boolean).map((w) => w.slice(0, 4));
  const words = new Set(stems(section));
  return [...new Set(sections)]
    .map((s) => {
      const other = s.toLowerCase();
      const within = other.includes(wanted) || wanted.includes(other);
      const shared = new Set(stems(s).filter((w) => words.has(w))).size;
      return { s, shared: within ? Infinity : shared, d: distance(wanted, other) };
    })
    .sort((x, y) => y.shared - x.shared || x.d - y.d)
    .slice(0, count)
    .map((x) => x.s);
}

/** The cited file as a path from the root: from the root if it is there, else from the citing file's folder. */
function resolveTarget(root: string, citation: Citation): string {
  if (existsSync(join(root, citation.target))) return normalize(citation.target);
  return normalize(join(dirname(citation.file), citation.target));
}

export function checkCitations(root: string, citations: Citation[]): Problem[] {
  const cache = new Map<string, string[] | null>();
  const problems: Problem[] = [];
  for (const citation of citations) {
    const target = resolveTarget(root, citation);
    if (!cache.has(target)) cache.set(target, sectionsOf(root, target));
    const sections = cache.get(target)!;
    if (sections === null) problems.push({ citation, reason: `${citation.target} does not exist` });
    else if (!sections.includes(citation.section)) {
      const near = nearest(citation.section, sections).map((s) => `"${s}"`);
      problems.push({ citation, reason: `${target} has no section "${citation.section}"; nearest: ${near.join(', ')}` });
    }
  }
  return problems;
}

export function citingFiles(root: string): string[] {
  const files: string[] = [];
  const visit = (path: string): void => {
    const full = join(root, path);
    if (!existsSync(full)) return;
    if (statSync(full).isDirectory()) {
      for (const entry of readdirSync(full)) if (!SKIPPED_DIRS.has(entry)) visit(join(path, entry));
    } else if (TEXT_FILE.test(path)) files.push(path);
  };
  CITING_ROOTS.forEach(visit);
  return files.sort();
}

export function citationsIn(root: string): Citation[] {
  return citingFiles(root).flatMap((file) => findCitations(relative(root, join(root, file)), readFileSync(join(root, file), 'utf8')));
}

export function describeProblem({ citation, reason }: Problem): string {
  return `${citation.file}:${citation.line}: ${citation.text}: ${reason}`;
}
