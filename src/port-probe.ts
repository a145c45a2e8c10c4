import { Socket } from 'node:net';

/**
 * Whether something accepts TCP connections on 127.0.0.1:`port` within `timeoutMs`: how the
 * embedded PostgreSQL's pid file and `offerdesk listen`'s earlier session are told alive from
 * stale (a process id alone may have been reused).
 */
export function acceptsConnections(port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const finish = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once('error', () => finish(false));
    socket.connect(port, '127.0.0.1', () => finish(true));
  });
}
