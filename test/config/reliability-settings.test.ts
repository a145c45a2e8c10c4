import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { connectionsCheckingIntervalMs } from '../../src/http-server.js';

describe('reliability settings (docs/reliability.md)', () => {
  it('defaults fit an API of small requests behind a load balancer', () => {
    const config = loadConfig({});
    expect(config.redis).toEqual({ commandTimeoutMs: 300, connectTimeoutMs: 1_000, reconnectMaxDelayMs: 2_000 });
    expect(config.http).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 15_000, keepAliveTimeoutMs: 65_000, maxHeaderBytes: 8_192, responseDeadlineMs: 5_000 });
    expect(config.readiness.workerStaleAfterMs).toBe(60_000);
    expect(connectionsCheckingIntervalMs(config.http)).toBe(1_000);
  });

  it.each([
    [{ REDIS_COMMAND_TIMEOUT_MS: 'soon' }, /REDIS_COMMAND_TIMEOUT_MS must be a whole number/],
    [{ REDIS_COMMAND_TIMEOUT_MS: '0' }, /REDIS_COMMAND_TIMEOUT_MS must be between 10 and 10000/],
    [{ HTTP_MAX_HEADER_BYTES: '100' }, /HTTP_MAX_HEADER_BYTES must be between 1024 and 65536/],
    [{ HTTP_HEADERS_TIMEOUT_MS: '20000' }, /HTTP_HEADERS_TIMEOUT_MS \(20000\) must not exceed HTTP_REQUEST_TIMEOUT_MS \(15000\)/],
    [{ READY_WORKER_STALE_SECONDS: '-1' }, /READY_WORKER_STALE_SECONDS must be a whole number/],
  ])('%o is refused with what to fix', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
