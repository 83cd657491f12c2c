import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../../test/create-test-app.ts';
import { collectValidationData } from './revocation.ts';

const run = promisify(execFile);

let t: TestApp;
let workDirectory: string;
let internal: http.Server;
let internalPort: number;
/** What the "internal service" (a stand-in for a metadata endpoint or an admin port) was asked. */
const hits: string[] = [];
const file = (name: string) => path.join(workDirectory, name);

async function openssl(args: string[]): Promise<void> {
  await run('openssl', args, { cwd: workDirectory });
}

/** A leaf of a CA the notary made themselves, naming `ocsp` and `crl` as its revocation addresses (as an uploaded PKCS#12 can). */
async function createLeaf(name: string, ocsp: string, crl: string): Promise<string> {
  await fs.promises.writeFile(
    file(`${name}.cnf`),
    ['basicConstraints=CA:FALSE', 'keyUsage=critical,digitalSignature', `authorityInfoAccess=OCSP;URI:${ocsp}`, `crlDistributionPoints=URI:${crl}`].join('\n'),
  );
  await openssl([
    'req',
    '-new',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.csr`,
    '-subj',
    `/CN=${name}`,
  ]);
  await openssl([
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-set_serial',
    '0x2001',
    '-days',
    '30',
    '-extfile',
    `${name}.cnf`,
    '-out',
    `${name}.pem`,
  ]);
  return fs.promises.readFile(file(`${name}.pem`), 'utf8');
}

beforeAll(async () => {
  t = await createTestApp();
  workDirectory = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'ron-attack-revocation-'));
  internal = http.createServer((request, response) => {
    hits.push(`${request.method} ${request.url}`);
    if (request.url === '/redirect') response.writeHead(302, { location: `http://127.0.0.1:${internalPort}/latest/meta-data/` }).end();
    else response.writeHead(200, { 'content-type': 'text/plain' }).end('secret internal data');
  });
  await new Promise<void>((resolve) => internal.listen(0, '127.0.0.1', resolve));
  internalPort = (internal.address() as AddressInfo).port;
  await openssl([
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-subj',
    '/CN=Homemade CA',
    '-days',
    '3650',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
});

afterAll(async () => {
  await new Promise((resolve) => internal?.close(resolve));
  await t?.close();
  if (workDirectory) await fs.promises.rm(workDirectory, { recursive: true, force: true });
});

describe('revocation data fetched from addresses a notary’s own certificate names', () => {
  it('never contacts a loopback, private or link-local address named in an uploaded certificate', async () => {
    const leaf = await createLeaf('Lou Loopback', `http://127.0.0.1:${internalPort}/admin/ocsp`, `http://[::ffff:127.0.0.1]:${internalPort}/admin/crl`);
    const caPem = await fs.promises.readFile(file('ca.pem'), 'utf8');
    hits.length = 0;
    const data = await collectValidationData(t.db, t.secretsKey, [leaf, caPem]);
    expect(hits).toEqual([]);
    expect(data.ocspResponses).toEqual([]);
    expect(data.crls).toEqual([]);
    expect(data.missing).toEqual([
      `The revocation status of the certificate of Lou Loopback (serial 2001) could not be had: its OCSP responder http://127.0.0.1:${internalPort}/admin/ocsp is at a private, loopback or otherwise non-public address (127.0.0.1), which the platform does not contact; its CRL at http://[::ffff:127.0.0.1]:${internalPort}/admin/crl is at a private, loopback or otherwise non-public address (::ffff:7f00:1), which the platform does not contact.`,
    ]);
    const metadata = await createLeaf('Meta Data', 'http://169.254.169.254/latest/meta-data/', 'http://10.0.0.1/crl');
    const refused = await collectValidationData(t.db, t.secretsKey, [metadata, caPem]);
    expect(refused.missing[0]).toContain('169.254.169.254');
    expect(refused.missing[0]).toContain('non-public address');
  }, 30_000);

  it('follows no redirect, even where private addresses are allowed', async () => {
    const leaf = await createLeaf('Rex Redirect', `http://127.0.0.1:${internalPort}/redirect`, `http://127.0.0.1:${internalPort}/redirect`);
    const caPem = await fs.promises.readFile(file('ca.pem'), 'utf8');
    hits.length = 0;
    const data = await collectValidationData(t.db, t.secretsKey, [leaf, caPem], { isPrivateAllowed: true });
    expect(hits).toEqual(['POST /redirect', 'GET /redirect']);
    expect(data.missing[0]).toContain('answered HTTP 302');
  }, 30_000);
});
