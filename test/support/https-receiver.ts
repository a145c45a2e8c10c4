import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TLSSocket } from 'node:tls';

/**
 * A real HTTPS webhook receiver for tests (real parts in tests: a real TLS peer): 127.0.0.1 on a random port, a
 * certificate for hooks.test, other.test and *.hooks.test from a CA made at run time with the
 * openssl CLI, keep-alive on. It records every request as it arrived on the wire and answers as
 * the test scripts it. Point the sender at it with `devResolveFor(receiver)`.
 */

const run = promisify(execFile);

export const RECEIVER_NAMES = ['hooks.test', 'other.test', '*.hooks.test'];

export interface TestCertificates {
  caPem: string;
  /** The CA as a file, for NODE_EXTRA_CA_CERTS of child processes. */
  caFile: string;
  keyPem: string;
  certPem: string;
}

let certificates: Promise<TestCertificates> | undefined;

/** One CA and server certificate per test process, made on first use. */
export function testCertificates(): Promise<TestCertificates> {
  certificates ??= makeCertificates();
  return certificates;
}

async function makeCertificates(): Promise<TestCertificates> {
  const dir = await mkdtemp(join(tmpdir(), 'offerdesk-test-ca-'));
  const file = (name: string) => join(dir, name);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await run('openssl', [
    'req', '-x509', ...ec, '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '2',
    '-subj', '/CN=Offerdesk Test CA',
    '-addext', 'basicConstraints=critical,CA:TRUE',
    '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  await run('openssl', ['req', ...ec, '-keyout', file('server.key'), '-out', file('server.csr'), '-subj', '/CN=hooks.test']);
  await writeFile(
    file('server.ext'),
    [
      `subjectAltName=${RECEIVER_NAMES.map((name) => `DNS:${name}`).join(',')}`,
      'basicConstraints=CA:FALSE',
      'keyUsage=critical,digitalSignature',
      'extendedKeyUsage=serverAuth',
    ].join('\n'),
  );
  await run('openssl', [
    'x509', '-req', '-in', file('server.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key'),
    '-set_serial', `0x${Date.now().toString(16)}`, '-days', '2', '-extfile', file('server.ext'), '-out', file('server.pem'),
  ]);
  return {
    caPem: await readFile(file('ca.pem'), 'utf8'),
    caFile: file('ca.pem'),
    keyPem: await readFile(file('server.key'), 'utf8'),
    certPem: await readFile(file('server.pem'), 'utf8'),
  };
}

export interface RecordedRequest {
  method: string;
  path: string;
  /** Exactly as received: name, value, name, value... in wire order and case. */
  rawHeaders: string[];
  /** Lowercased header names in wire order. */
  headerNames: string[];
  /** Lowercased name -> value (last one wins); for reading, not for counting. */
  headers: Record<string, string>;
  body: Buffer;
  receivedAt: Date;
  /** Which TLS connection carried it, counting from 1. */
  connection: number;
}

export type ReplyPlan =
  | { status?: number; headers?: Record<string, string>; body?: string | Buffer; delayMs?: number }
  /** Accept the request and never answer. */
  | { action: 'never' }
  /** Drop the connection without answering. */
  | { action: 'close' }
  /** Send the status line and headers, then stall the body forever. */
  | { action: 'headers-then-stall'; status?: number };

export interface HttpsReceiver {
  port: number;
  caPem: string;
  caFile: string;
  requests: RecordedRequest[];
  /** TLS connections accepted so far. */
  readonly connections: number;
  /** Decides the reply of every following request; the default is 200 with body "ok". */
  reply(plan: (request: RecordedRequest, index: number) => ReplyPlan): void;
  close(): Promise<void>;
}

export async function startHttpsReceiver(): Promise<HttpsReceiver> {
  const { caPem, caFile, keyPem, certPem } = await testCertificates();
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  let plan: (request: RecordedRequest, index: number) => ReplyPlan = () => ({ status: 200, body: 'ok' });

  const server: Server = createServer({ key: keyPem, cert: certPem, keepAliveTimeout: 30_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawHeaders = [...req.rawHeaders];
      const headerNames = rawHeaders.filter((_, i) => i % 2 === 0).map((name) => name.toLowerCase());
      const headers: Record<string, string> = {};
      for (let i = 0; i < rawHeaders.length; i += 2) headers[rawHeaders[i]!.toLowerCase()] = rawHeaders[i + 1]!;
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        rawHeaders,
        headerNames,
        headers,
        body: Buffer.concat(chunks),
        receivedAt: new Date(),
        connection: (req.socket as TLSSocket & { receiverConnection?: number }).receiverConnection ?? 0,
      };
      const index = requests.push(recorded) - 1;
      const decided = plan(recorded, index);
      if ('action' in decided) {
        if (decided.action === 'close') req.socket.destroy();
        if (decided.action === 'headers-then-stall') {
          res.writeHead(decided.status ?? 200, { 'content-type': 'text/plain', 'content-length': '100' });
          res.write('partial');
        }
        return;
      }
      const answer = () => {
        res.writeHead(decided.status ?? 200, decided.headers ?? {});
        res.end(decided.body ?? '');
      };
      if (decided.delayMs) setTimeout(answer, decided.delayMs);
      else answer();
    });
  });
  server.on('secureConnection', (socket: TLSSocket & { receiverConnection?: number }) => {
    connections += 1;
    socket.receiverConnection = connections;
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // Handshakes the client refuses (untrusted CA, wrong name) are expected in tests.
  server.on('tlsClientError', () => undefined);

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    port,
    caPem,
    caFile,
    requests,
    get connections() {
      return connections;
    },
    reply(next) {
      plan = next;
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

/** `OFFERDESK_WEBHOOK_DEV_RESOLVE` as a map: these names go to the receiver's port. */
export function devResolveFor(
  receiver: { port: number },
  names: string[] = ['hooks.test', 'other.test'],
): Map<string, { address: string; port: number }> {
  return new Map(names.map((name) => [name, { address: '127.0.0.1', port: receiver.port }]));
}

/** The same mapping as the environment variable's text, for child processes. */
export function devResolveEnv(receiver: { port: number }, names: string[] = ['hooks.test', 'other.test']): string {
  return names.map((name) => `${name}=127.0.0.1:${receiver.port}`).join(',');
}
