import { createServer, type Server, type Socket } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** One mail as the SMTP server received and mailparser read it. */
export interface ReceivedMail {
  envelopeTo: string[];
  parsed: ParsedMail;
}

export interface SmtpReceiver {
  url: string;
  port: number;
  received: ReceivedMail[];
  /** Mails read in full and then answered 451 (see deferNextData). */
  deferred: ReceivedMail[];
  /** Addresses answered 550 at RCPT TO (a permanent refusal). */
  refuse: Set<string>;
  /** While > 0, each message is read and then answered 451 at the end of DATA, and this counts down. */
  deferNextData: number;
  /** A slow server: how long it waits before answering MAIL FROM, RCPT TO and the end of DATA. */
  delays: { mailFromMs: number; rcptToMs: number; dataEndMs: number };
  /** Conversations ended so far (by either side). */
  closed: number;
  /** AUTH attempts (with `auth`), by user name. */
  logins: string[];
  /** Back to a server that answers at once and has received nothing. */
  reset(): void;
  /** Connection refused until `up()` (the port is closed). */
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

/** The credentials a receiver started with `auth` takes. */
export const SMTP_USER = 'mailer';
export const SMTP_PASSWORD = 'relay-password-4d8f';

/**
 * A real SMTP server (npm smtp-server) on a loopback socket, no TLS. With `auth`, it offers AUTH
 * (without STARTTLS, which it does not offer) and requires it before MAIL FROM.
 */
export async function startSmtpReceiver(options: { auth?: boolean } = {}): Promise<SmtpReceiver> {
  const received: ReceivedMail[] = [];
  const deferred: ReceivedMail[] = [];
  const refuse = new Set<string>();
  const receiver = {} as SmtpReceiver;
  const later = (ms: number, then: () => void) => (ms > 0 ? void setTimeout(then, ms) : then());
  const make = () =>
    new SMTPServer({
      authOptional: !options.auth,
      allowInsecureAuth: options.auth === true,
      disabledCommands: options.auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
      logger: false,
      onAuth(auth, _session, callback) {
        receiver.logins.push(auth.username ?? '');
        if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) return callback(null, { user: auth.username });
        callback(new Error('invalid credentials'));
      },
      onClose() {
        receiver.closed += 1;
      },
      onMailFrom(_address, _session, callback) {
        later(receiver.delays.mailFromMs, () => callback());
      },
      onRcptTo(address, _session, callback) {
        later(receiver.delays.rcptToMs, () => {
          if (refuse.has(address.address)) {
            const error = new Error('mailbox unavailable') as Error & { responseCode: number };
            error.responseCode = 550;
            return callback(error);
          }
          callback();
        });
      },
      onData(stream, session, callback) {
        simpleParser(stream)
          .then((parsed) => new Promise<ParsedMail>((resolve) => later(receiver.delays.dataEndMs, () => resolve(parsed))))
          .then((parsed) => {
            if (receiver.deferNextData > 0) {
              receiver.deferNextData -= 1;
              deferred.push({ envelopeTo: session.envelope.rcptTo.map((r) => r.address), parsed });
              const error = new Error('try again later') as Error & { responseCode: number };
              error.responseCode = 451;
              return callback(error);
            }
            received.push({ envelopeTo: session.envelope.rcptTo.map((r) => r.address), parsed });
            callback();
          })
          .catch(callback);
      },
    });
  let server = make();
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve((server.server.address() as { port: number }).port));
    });
  const port = await listen(0);
  Object.assign(receiver, {
    url: `smtp://127.0.0.1:${port}`,
    port,
    received,
    deferred,
    refuse,
    deferNextData: 0,
    delays: { mailFromMs: 0, rcptToMs: 0, dataEndMs: 0 },
    closed: 0,
    logins: [],
    reset() {
      received.length = 0;
      deferred.length = 0;
      refuse.clear();
      Object.assign(receiver, { deferNextData: 0, delays: { mailFromMs: 0, rcptToMs: 0, dataEndMs: 0 }, closed: 0, logins: [] });
    },
    down: () => new Promise<void>((resolve) => server.close(() => resolve())),
    async up() {
      server = make();
      await listen(port);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
  return receiver;
}

/** A server that accepts connections and never says a word: a hung SMTP server. */
export async function startSilentServer(): Promise<{ url: string; connections: () => number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let count = 0;
  const server: Server = createServer((socket) => {
    count += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `smtp://127.0.0.1:${port}`,
    connections: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
