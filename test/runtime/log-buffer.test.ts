import { describe, expect, it } from 'vitest';
import { LOG_BUFFER_BYTES, LOG_FLUSH_MS } from '../../src/log.js';
import { exitOf, outputOf, spawnTs } from './helpers.js';

/**
 * The JSON logger writes stdout in batches (src/log.ts): a process that exits loses none of
 * its buffered lines, and a quiet one still shows a line within LOG_FLUSH_MS.
 */
const lines = (text: string) => text.split('\n').filter((line) => line.startsWith('{'));

describe('the buffered JSON log', () => {
  it('writes every buffered line when the process exits right after logging', async () => {
    // Fewer bytes than one batch, and more than one: both must come out whole and in order.
    for (const count of [3, Math.ceil((3 * LOG_BUFFER_BYTES) / 60)]) {
      const child = spawnTs('test/runtime/fixtures/log-lines.ts', ['exit', String(count)], { ...process.env });
      const output = outputOf(child);
      expect(await exitOf(child, 30_000)).toEqual({ code: 0, signal: null });
      const logged = lines(output.text()).map((line) => (JSON.parse(line) as { i: number }).i);
      expect(logged).toEqual(Array.from({ length: count }, (_, i) => i));
    }
  }, 60_000);

  it('shows a line of a quiet process within the flush interval, without waiting for a full batch', async () => {
    const child = spawnTs('test/runtime/fixtures/log-lines.ts', ['stay', '1'], { ...process.env });
    try {
      const output = outputOf(child);
      // Started (tsx compiles the fixture first), then the line within LOG_FLUSH_MS plus slack.
      const [line] = await output.waitFor(/^\{.*"msg":"line".*\}$/, 15_000 + LOG_FLUSH_MS);
      expect(JSON.parse(line!)).toMatchObject({ i: 0, name: 'log-fixture' });
    } finally {
      child.kill('SIGKILL');
    }
  }, 60_000);
});
