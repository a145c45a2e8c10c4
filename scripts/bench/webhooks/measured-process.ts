import { startNode } from '../processes.js';
import { sleep } from './harness.js';

/**
 * A bench process whose measured part the orchestrator starts and ends around its CPU samples,
 * used by the baseline sender and the queue floor. The process does its set-up (reads its rows,
 * opens secrets), prints {"ready":true} and waits; the orchestrator takes its start sample and
 * sends SIGUSR2; the process runs, prints its result as one JSON line and stays alive until
 * SIGTERM, so the end sample still finds it in /proc.
 */

/** Child side: announce readiness and resolve on the orchestrator's go. */
export function readyThenGo(): Promise<void> {
  // A signal handler alone does not keep the event loop alive.
  const alive = setInterval(() => {}, 60_000);
  return new Promise((resolve) => {
    process.once('SIGUSR2', () => {
      clearInterval(alive);
      resolve();
    });
    process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
  });
}

/** Child side: print the result and stay until SIGTERM. */
export function finish(result: unknown): void {
  setInterval(() => {}, 60_000);
  process.once('SIGTERM', () => process.exit(0));
  process.stdout.write(`${JSON.stringify({ result })}\n`);
}

const READY_TIMEOUT_MS = 120_000;

/** Orchestrator side: runs `script`, calling `sample` at its go (start) and at its result (end). */
export async function runMeasured<T, S>(
  name: string,
  script: string,
  args: string[],
  env: Record<string, string>,
  sample: (pid: number) => Promise<S>,
  runTimeoutMs: number,
): Promise<{ result: T; start: S; end: S; pid: number }> {
  const proc = startNode(name, script, { args, env, stdout: 'pipe' });
  let out = '';
  proc.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  let ended = false;
  void proc.exited.then(() => (ended = true));
  const waitFor = async (marker: string, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (!out.includes(marker)) {
      if (ended) throw new Error(`${name} exited early: ${out.trim().split('\n').pop()?.slice(0, 500) ?? ''}`);
      if (Date.now() > deadline) throw new Error(`${name}: no ${marker} within ${timeoutMs / 1000} s`);
      await sleep(5);
    }
  };
  try {
    await waitFor('"ready":true', READY_TIMEOUT_MS);
    const start = await sample(proc.pid);
    proc.child.kill('SIGUSR2');
    await waitFor('"result":', runTimeoutMs);
    const end = await sample(proc.pid);
    const line = out.split('\n').find((l) => l.startsWith('{"result":'))!;
    return { result: (JSON.parse(line) as { result: T }).result, start, end, pid: proc.pid };
  } finally {
    await proc.stop();
  }
}
