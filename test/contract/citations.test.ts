import { describe, expect, it } from 'vitest';
import { checkCitations, citationsIn, describeProblem, findCitations } from './citations.js';

/**
 * Every rule the code, the tests and the docs cite is stated in the repository, under the heading
 * the citation names (docs/contract.md "Citations"). The planted citations below are built from
 * parts, so that this file holds none of its own.
 */
const cite = (file: string, section: string, between = ' ') => `${file}${between}"${section}"`;

describe('citations of a document section', () => {
  it('every citation in the repository names a file that exists and a section it has', () => {
    const problems = checkCitations('.', citationsIn('.'));
    expect(problems.map(describeProblem).join('\n')).toBe('');
  });

  it('finds a citation wrapped across a comment line, and one of a heading written with its #s', () => {
    const text = [`/** The rule of ${cite('docs/webhook-delivery.md', 'Retries', '\n *')}`, ` * and ${cite('openapi.yaml', '## Methods')}. */`].join('\n');
    expect(findCitations('src/x.ts', text).map((c) => [c.line, c.target, c.section])).toEqual([
      [1, 'docs/webhook-delivery.md', 'Retries'],
      [3, 'openapi.yaml', 'Methods'],
    ]);
  });

  it('accepts a heading of a Markdown page, a heading inside a contract description and an operationId', () => {
    const text = [cite('docs/webhook-delivery.md', 'Fairness'), cite('openapi.yaml', 'Order of checks'), cite('console-api.yaml', 'createEndpoint')].join('\n');
    expect(checkCitations('.', findCitations('src/x.ts', text))).toEqual([]);
  });

  it('reports a heading the file does not have with file:line and the nearest headings', () => {
    const text = `\n// ${cite('openapi.yaml', 'Order of check')}`;
    const [problem, ...more] = checkCitations('.', findCitations('src/x.ts', text)).map(describeProblem);
    expect(more).toEqual([]);
    expect(problem).toMatch(/^src\/x\.ts:2: openapi\.yaml "Order of check": openapi\.yaml has no section "Order of check"; nearest: "Order of checks"/);
  });

  it('reports a cited file that does not exist', () => {
    const problems = checkCitations('.', findCitations('src/x.ts', `// ${cite('docs/nowhere.md', 'Limits')}`));
    expect(problems.map(describeProblem)).toEqual([`src/x.ts:1: ${cite('docs/nowhere.md', 'Limits')}: docs/nowhere.md does not exist`]);
  });
});
