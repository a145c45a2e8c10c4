import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { freePort } from '../bench/processes.js';

/**
 * A TCP forwarder on a fixed loopback port in front of a real server (the SMTP server, the trace
 * collector): `down()` closes the port and cuts every connection (the server is gone), `up()`
 * opens it again on the same port, and `slow(ms)` holds every chunk the server sends for that
 * long (a server that answers slowly). The service only ever sees the gate's port.
 */
export interface Gate {
  port: number;
  isUp(): boolean;
  down(): Promise<void>;
  up(): Promise<void>;
  slow(delayMs: number): void;
  close(): Promise<void>;
}

export async function startGate(target: { host?: string; port: number }): Promise<Gate> {
  const port = await freePort();
  const sockets = new Set<Socket>();
  let delayMs = 0;
  let server: Server | undefined;
  const open = () =>
    new Promise<void>((resolve, reject) => {
      const next = createServer((client) => {
        const upstream = createConnection({ host: target.host ?? '127.0.0.1', port: target.port });
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', () => {
            client.destroy();
            upstream.destroy();
          });
        }
        client.pipe(upstream);
        upstream.on('data', (chunk: Buffer) => {
          if (delayMs === 0) client.write(chunk);
          else setTimeout(() => client.writable && client.write(chunk), delayMs);
        });
        upstream.on('end', () => setTimeout(() => client.end(), delayMs));
      });
      next.once('error', reject);
      next.listen(port, '127.0.0.1', () => {
        server = next;
        resolve();
      });
    });
  const shut = () =>
    new Promise<void>((resolve) => {
      const current = server;
      server = undefined;
      if (!current) return resolve();
      current.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });
  await open();
  return {
    port,
    isUp: () => server !== undefined,
    down: shut,
    async up() {
      if (!server) await open();
    },
    slow(ms) {
      delayMs = ms;
    },
    close: shut,
  };
}
