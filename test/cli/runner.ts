import { execFile } from 'node:child_process';
import { expect } from 'vitest';
import { projectRoot } from '../../src/paths.js';
import { offerdeskArgs } from '../support/offerdesk-command.js';

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The offerdesk CLI as a real process, run from the project's root. `env` is read at each run (the
 * database of a test file exists only after its beforeAll).
 */
export function cliRunner(env: () => Record<string, string>) {
  function cli(...args: string[]): Promise<Run> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        offerdeskArgs(...args),
        { cwd: projectRoot, env: { ...process.env, ...env() }, timeout: 60_000 },
        (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  }

  /** A run that must succeed quietly, its `--json` output parsed. */
  async function json<T>(...args: string[]): Promise<T> {
    const run = await cli(...args, '--json');
    expect(run, run.stderr).toMatchObject({ code: 0, stderr: '' });
    return JSON.parse(run.stdout) as T;
  }

  return { cli, json };
}
