import { createServer, type Server } from 'node:net';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { startMetricsListener } from '../../src/telemetry/metrics-server.js';
import { freshDatabase, type TestDatabase } from '../support/database.js';
import { exitOf, outputOf, spawnOfferdesk } from '../runtime/helpers.js';
import { freePort } from './stack.js';

/** Where GET /metrics listens (OFFERDESK_METRICS_PORT, --metrics-port), and what a taken port does. */

function capturedLogger() {
  const lines: { level: number; msg: string }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as { level: number; msg: string });
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

let occupied: Server;
let occupiedPort: number;

beforeAll(async () => {
  occupied = createServer();
  await new Promise<void>((resolve) => occupied.listen(0, '127.0.0.1', resolve));
  occupiedPort = (occupied.address() as { port: number }).port;
});

afterAll(async () => {
  await new Promise((resolve) => occupied.close(resolve));
});

describe('the metrics listener', () => {
  it('defaults to port 9464 on HOST; 0 turns it off; anything else but a port is refused', async () => {
    expect(loadConfig({}).metrics).toEqual({ port: 9464, portChosen: false, otlp: undefined });
    expect(loadConfig({ OFFERDESK_METRICS_PORT: '9500' }).metrics).toMatchObject({ port: 9500, portChosen: true });
    expect(() => loadConfig({ OFFERDESK_METRICS_PORT: 'nine' })).toThrow(/OFFERDESK_METRICS_PORT must be a whole number/);
    expect(() => loadConfig({ OFFERDESK_METRICS_PORT: '70000' })).toThrow(/OFFERDESK_METRICS_PORT must be between 0 and 65535/);
    const { logger } = capturedLogger();
    expect(await startMetricsListener({ port: 0, portChosen: true, host: '127.0.0.1' }, logger)).toBeUndefined();
  });

  it('serves GET /metrics only', async () => {
    const { logger } = capturedLogger();
    const listener = (await startMetricsListener({ port: await freePort(), portChosen: true, host: '127.0.0.1' }, logger))!;
    try {
      const metrics = await fetch(`http://127.0.0.1:${listener.port}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toMatch(/^# HELP /m);
      expect((await fetch(`http://127.0.0.1:${listener.port}/`)).status).toBe(404);
      expect((await fetch(`http://127.0.0.1:${listener.port}/metrics`, { method: 'POST' })).status).toBe(404);
    } finally {
      await listener.close();
    }
  });

  it('stops the start when a chosen port is taken, and only warns when the default one is', async () => {
    const { logger, lines } = capturedLogger();
    await expect(startMetricsListener({ port: occupiedPort, portChosen: true, host: '127.0.0.1' }, logger)).rejects.toThrow(ConfigError);
    await expect(startMetricsListener({ port: occupiedPort, portChosen: true, host: '127.0.0.1' }, logger)).rejects.toThrow(
      `cannot serve metrics on 127.0.0.1:${occupiedPort}: EADDRINUSE`,
    );
    expect(await startMetricsListener({ port: occupiedPort, portChosen: false, host: '127.0.0.1' }, logger)).toBeUndefined();
    expect(lines.filter((line) => line.level === 40).map((line) => line.msg)).toEqual([
      expect.stringMatching(/^metrics not served: the default metrics port 127\.0\.0\.1:\d+ is taken .*--metrics-port/),
    ]);
  });
});

describe('offerdesk worker --metrics-port', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase();
  });
  afterAll(async () => {
    await db.drop();
  });
  const env = () => ({ ...process.env, DATABASE_URL: db.url, OFFERDESK_MASTER_KEY: randomBytes(32).toString('base64'), LOG_LEVEL: 'warn', HOST: '127.0.0.1' });

  it('refuses a value that is not a port, in one line', async () => {
    const child = spawnOfferdesk(['worker', '--metrics-port', '99999'], env());
    const output = outputOf(child);
    expect(await exitOf(child, 50_000)).toEqual({ code: 2, signal: null });
    expect(output.text()).toMatch(/--metrics-port.*must be a port number from 0 to 65535/);
  }, 60_000);

  it('exits 2 with one line when the port it was given is taken', async () => {
    const child = spawnOfferdesk(['worker', '--metrics-port', String(occupiedPort)], env());
    const output = outputOf(child);
    expect(await exitOf(child, 50_000)).toEqual({ code: 2, signal: null });
    const stderr = output.text().split('\n').filter((line) => line.startsWith('[stderr] '));
    expect(stderr).toEqual([`[stderr] offerdesk: cannot serve metrics on 127.0.0.1:${occupiedPort}: EADDRINUSE (set --metrics-port or OFFERDESK_METRICS_PORT; 0 turns it off)`]);
  }, 60_000);
});
