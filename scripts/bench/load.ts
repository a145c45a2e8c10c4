import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { percentile } from './numbers.js';

/**
 * The load generator, its own process (no shared event loop with a server under test): autocannon over prepared
 * requests, each connection from its own place in the list; latency of every response to the sub-millisecond.
 */
export interface LoadSpec {
  origin: string;
  connections: number;
  durationSeconds: number;
  /** Requests a second over all connections; unset, as many as the server answers. */
  rate?: number;
  /** Requests in rotation; each one a path (with query) and its headers. */
  requests: { path: string; headers: Record<string, string> }[];
}

export type LoadResult = Awaited<ReturnType<typeof run>>;

const REQUEST_TIMEOUT_S = 10;
/** Prepared requests per connection; a longer list is split into windows across connections. */
const MAX_REQUESTS_PER_CONNECTION = 2_000;

async function run(spec: LoadSpec) {
  const latencies: number[] = [];
  let clientIndex = 0;
  /** Responses by status code. */
  const statuses: Record<string, number> = {};
  const list = spec.requests;
  const instance = autocannon({
    url: spec.origin,
    connections: spec.connections,
    duration: spec.durationSeconds,
    overallRate: spec.rate,
    timeout: REQUEST_TIMEOUT_S,
    // autocannon prebuilds this for every connection before setupClient narrows it: the whole list stalled it 15 s.
    requests: list.slice(0, MAX_REQUESTS_PER_CONNECTION),
    setupClient: (client: { setRequests(requests: unknown[]): void }) => {
      // Each connection gets its own window of the list (autocannon prebuilds every request of it).
      const offset = Math.floor(((clientIndex++ % spec.connections) * list.length) / spec.connections);
      const window = Math.min(list.length, MAX_REQUESTS_PER_CONNECTION);
      client.setRequests(Array.from({ length: window }, (_, i) => list[(offset + i) % list.length]!));
    },
  });
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    latencies.push(responseTime);
    statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
  });
  // once() rejects on an 'error' event.
  const [result] = (await once(instance, 'done')) as [autocannon.Result];
  // autocannon's own run time: building the prepared requests must not count against the server.
  const seconds = result.duration;
  const sorted = latencies.sort((a, b) => a - b);
  const count = sorted.length;
  return {
    requests: count,
    seconds,
    requestsPerSecond: count / seconds,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    maxMs: count ? sorted[count - 1]! : 0,
    statuses,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

process.stdout.write(`${JSON.stringify(await run(JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as LoadSpec))}\n`);
process.exit(0);
