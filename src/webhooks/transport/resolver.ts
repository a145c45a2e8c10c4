import { lookup } from 'node:dns/promises';

/** Name resolution for webhook endpoints; tests pass fakes (DNS rebinding, private answers). */
export interface Resolver {
  resolve(hostname: string): Promise<{ address: string; family: 4 | 6 }[]>;
}

/**
 * The operating system's resolver (getaddrinfo, so /etc/hosts and search rules apply exactly as for
 * any other client on the host), every address in the order it answered.
 */
export const systemResolver: Resolver = {
  async resolve(hostname) {
    const answers = await lookup(hostname, { all: true, order: 'verbatim' });
    return answers.map((answer) => ({ address: answer.address, family: answer.family === 6 ? 6 : 4 }));
  },
};
