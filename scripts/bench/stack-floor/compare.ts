import { existsSync, readFileSync } from 'node:fs';

/** The name the read bench's baseline goes by in the ladder's tables. */
export const BASELINE = 'baseline+db';

interface ResultsFile {
  finishedAt?: string;
  read?: { scenarios: { name: string; baseline: { serverCpuMsPerRequest: number | null }; service: { serverCpuMsPerRequest: number | null } }[] };
}

/**
 * The service's CPU per request is at least the baseline's plus what the stack adds on top of
 * bare node:http, so its ratio to the baseline is at least 1 + increment / baseline. With a
 * baseline measured in this run, the committed baselines are also scaled by how this run's
 * one-offer baseline compares with the committed one (the machine's load changes every CPU cost).
 */
export function compareWithBench(input: {
  medians: Map<string, number>;
  /** Rungs to set against the baseline, by name. */
  steps: string[];
  resultsFile: string;
  log: (line: string) => void;
}): void {
  const { medians, steps, resultsFile, log } = input;
  if (!existsSync(resultsFile)) return log(`\nno ${resultsFile} to compare with`);
  const results = JSON.parse(readFileSync(resultsFile, 'utf8')) as ResultsFile;
  const bare = medians.get('bare');
  if (bare === undefined || !results.read) return;
  const scenarios = results.read.scenarios.map((s) => ({
    name: s.name,
    base: (s.baseline.serverCpuMsPerRequest ?? NaN) * 1000,
    service: (s.service.serverCpuMsPerRequest ?? NaN) * 1000,
  }));
  const table = (title: string, scale: number) => {
    log(`\n${title}`);
    log(`scenario             baseline µs  service µs (ratio)   ${steps.map((r) => `${r}-bare: ratio floor`.padEnd(32)).join('')}`);
    for (const { name, base: committed, service } of scenarios) {
      const base = committed * scale;
      const cells = steps.map((r) => {
        const increment = medians.get(r)! - bare;
        const floor = 1 + increment / base;
        return `+${increment.toFixed(0)} µs: ${floor.toFixed(2)}x${floor > 2 ? ' (2x out of reach)' : ''}`.padEnd(32);
      });
      const serviceCell = scale === 1 ? `${service.toFixed(0).padStart(11)} (${(service / base).toFixed(2)}x)` : ''.padEnd(19);
      log(`${name.padEnd(20)} ${base.toFixed(0).padStart(11)} ${serviceCell}  ${cells.join('')}`);
    }
  };
  table(`against the read bench's baseline CPU per request (${resultsFile}, ${results.finishedAt ?? 'undated'}):`, 1);
  const now = medians.get(BASELINE);
  const committedOne = scenarios.find((s) => s.name === 'offer-by-id')?.base;
  if (now !== undefined && committedOne !== undefined) {
    const scale = now / committedOne;
    table(`the same baselines scaled by this run's one-offer baseline (${now.toFixed(0)} µs vs ${committedOne.toFixed(0)}: ${scale.toFixed(2)}x):`, scale);
  }
}

