import type { BenchDatabase } from '../database.js';
import type { SeededData } from '../seed-data.js';

export type WebhookResults = Record<string, unknown>;

export async function runWebhookBenchmark(
  _db: BenchDatabase,
  _seeded: SeededData,
  options: { log: (line: string) => void; workDir: string } & Record<string, unknown>,
): Promise<WebhookResults | null> {
  options.log('webhook benchmark: not yet');
  return null;
}
