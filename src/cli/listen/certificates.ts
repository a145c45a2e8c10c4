import { createPrivateKey, KeyObject, randomBytes, webcrypto } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import { DEV_LISTEN_HOSTNAME } from '../../webhooks/management/dev-listen-rules.js';

/**
 * The local certificate authority of `offerdesk listen`, made once under `<dataDir>/listen/`, and
 * the receiver's certificate for DEV_LISTEN_HOSTNAME, signed by it. Only the worker's connection
 * to a listen endpoint trusts this CA (its PEM travels with the endpoint's mapping in the
 * database); nothing is added to the system's or Node's trust store.
 */

export const LISTEN_DIR = 'listen';
const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY_MS = 24 * 60 * 60 * 1000;
const CA_VALID_DAYS = 10 * 365;
/** Below the 398 days browsers and TLS stacks accept for a server certificate. */
const SERVER_VALID_DAYS = 397;
/** A server certificate this close to its end is made again at the next start. */
const RENEW_BEFORE_DAYS = 30;

export interface ListenCertificates {
  caPem: string;
  certPem: string;
  keyPem: string;
  /** Where the CA certificate is, to tell the user. */
  caFile: string;
  /** What this start made: nothing, the server certificate, or the CA as well. */
  made: 'none' | 'server' | 'ca';
}

const subtle = webcrypto.subtle;
x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
type Key = webcrypto.CryptoKey;
/** @peculiar/x509 is typed with the DOM's WebCrypto types; Node's are the same objects. */
const asX509 = <T>(value: unknown) => value as T;

export async function listenCertificates(dataDir: string, now = new Date()): Promise<ListenCertificates> {
  const dir = join(dataDir, LISTEN_DIR);
  const file = (name: string) => join(dir, name);
  mkdirSync(dir, { recursive: true, mode: 0o700 });

  let made: ListenCertificates['made'] = 'none';
  if (!existsSync(file('ca.pem')) || !existsSync(file('ca.key'))) {
    await makeCa(now, file);
    made = 'ca';
  }
  const caPem = readFileSync(file('ca.pem'), 'utf8');
  const ca = new x509.X509Certificate(caPem);
  if (made === 'ca' || !serverCertificateUsable(file, ca, now)) {
    await makeServerCertificate(ca, readFileSync(file('ca.key'), 'utf8'), now, file);
    if (made === 'none') made = 'server';
  }
  return {
    caPem,
    certPem: readFileSync(file('server.pem'), 'utf8'),
    keyPem: readFileSync(file('server.key'), 'utf8'),
    caFile: file('ca.pem'),
    made,
  };
}

function serverCertificateUsable(file: (name: string) => string, ca: x509.X509Certificate, now: Date): boolean {
  if (!existsSync(file('server.pem')) || !existsSync(file('server.key'))) return false;
  const cert = new x509.X509Certificate(readFileSync(file('server.pem'), 'utf8'));
  return cert.issuer === ca.subject && cert.notAfter.getTime() - now.getTime() > RENEW_BEFORE_DAYS * DAY_MS;
}

async function makeCa(now: Date, file: (name: string) => string): Promise<void> {
  const keys = await subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=Offerdesk listen local CA ${randomBytes(4).toString('hex')}`,
    notBefore: new Date(now.getTime() - DAY_MS),
    notAfter: new Date(now.getTime() + CA_VALID_DAYS * DAY_MS),
    keys: asX509<x509.X509CertificateCreateSelfSignedParams['keys']>(keys),
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(asX509<x509.PublicKeyType>(keys.publicKey)),
    ],
  });
  writePrivate(file('ca.key'), pemOf(keys.privateKey));
  writeAtomically(file('ca.pem'), cert.toString('pem'), 0o644);
}

async function makeServerCertificate(ca: x509.X509Certificate, caKeyPem: string, now: Date, file: (name: string) => string) {
  const der = createPrivateKey(caKeyPem).export({ type: 'pkcs8', format: 'der' });
  const caKey = await subtle.importKey('pkcs8', der, ALGORITHM, false, ['sign']);
  const keys = await subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${DEV_LISTEN_HOSTNAME}`,
    issuer: ca.subject,
    notBefore: new Date(now.getTime() - DAY_MS),
    notAfter: new Date(now.getTime() + SERVER_VALID_DAYS * DAY_MS),
    publicKey: asX509<x509.PublicKeyType>(keys.publicKey),
    signingKey: asX509<x509.X509CertificateCreateWithKeyParams['signingKey']>(caKey),
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: DEV_LISTEN_HOSTNAME }]),
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      await x509.AuthorityKeyIdentifierExtension.create(ca),
    ],
  });
  writePrivate(file('server.key'), pemOf(keys.privateKey));
  writeAtomically(file('server.pem'), cert.toString('pem'), 0o644);
}

function serial(): string {
  // Positive, 16 bytes: the top bit cleared so the DER integer needs no sign byte.
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f;
  return bytes.toString('hex');
}

function pemOf(key: Key): string {
  return KeyObject.from(key).export({ type: 'pkcs8', format: 'pem' }) as string;
}

function writePrivate(path: string, text: string): void {
  writeAtomically(path, text, 0o600);
}

/** Written beside and renamed into place, so a second listen never reads half a file. */
function writeAtomically(path: string, text: string, mode: number): void {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temporary, text, { mode, flag: 'wx' });
  renameSync(temporary, path);
}
