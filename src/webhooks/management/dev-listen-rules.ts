import type { WebhookConfig } from '../../config.js';
import type { DevListenTarget } from '../sql/devListen.js';
import { invalidInput } from '../../domain/errors.js';
import { normaliseHostname } from '../transport/address-rules.js';

/**
 * `offerdesk listen` (docs/receiving-webhooks-on-your-laptop.md) registers an endpoint under one
 * fixed internal name that a worker maps to the receiver's loopback port, only while development
 * mappings are enabled (config webhooks.devListen). Without the mapping the name is an internal
 * one (.localhost), which console-api.yaml "Endpoint addresses" refuses: a listen endpoint can
 * never reach anything but this machine, and a production worker never delivers to it.
 */
export const DEV_LISTEN_HOSTNAME = 'offerdesk-listen.localhost';
export const DEV_LISTEN_PATH = '/webhooks';

export function devListenUrl(): string {
  return `https://${DEV_LISTEN_HOSTNAME}${DEV_LISTEN_PATH}`;
}

/** Refuses a listen registration where development mappings are off, or for another name. */
export function requireDevListen(config: WebhookConfig, url: string): void {
  if (!config.devListen) {
    throw invalidInput(
      'development mappings are off here (DATABASE_URL is set or NODE_ENV=production); set OFFERDESK_DEV_LISTEN=1 for listen and the server',
    );
  }
  let hostname: string | null = null;
  try {
    hostname = normaliseHostname(new URL(url).hostname);
  } catch {
    // refused below
  }
  if (hostname !== DEV_LISTEN_HOSTNAME) throw invalidInput(`a listen endpoint must use ${DEV_LISTEN_HOSTNAME}`);
}

/** The configuration with one more development mapping: this URL's host name to the loopback target. */
export function withDevListen(config: WebhookConfig, url: string, target: DevListenTarget): WebhookConfig {
  let hostname: string | null = null;
  try {
    hostname = normaliseHostname(new URL(url).hostname);
  } catch {
    // Not a URL: the address check refuses it with its own reason.
  }
  // Loopback only (also a constraint of dev_listen_endpoints): a mapping never leaves this machine.
  if (!hostname || (target.address !== '127.0.0.1' && target.address !== '::1')) return config;
  return { ...config, devResolve: new Map([...config.devResolve, [hostname, { address: target.address, port: target.port }]]) };
}
