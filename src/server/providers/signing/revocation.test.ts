import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../../test/create-test-app.ts';
import { getOrCreatePlatformCa, getOrIssueNotaryCredentials } from './certificates.ts';
import { collectValidationData } from './revocation.ts';

const run = promisify(execFile);

let t: TestApp;
let workDirectory: string;
let standIn: http.Server;
let standInUrl: string;
const file = (name: string) => path.join(workDirectory, name);

async function openssl(args: string[]): Promise<string> {
  const { stdout, stderr } = await run('openssl', args, { cwd: workDirectory });
  return `${stdout}\n${stderr}`;
}

/** A certificate from the third party's CA, or a self-signed one when `issuer` is null. */
async function createCertificate(name: string, commonName: string, serial: string, extensions: string[], issuer: string | null = 'ca') {
  await fs.promises.writeFile(file(`${name}.cnf`), ['basicConstraints=CA:FALSE', ...extensions].join('\n'));
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
    `/CN=${commonName}`,
  ]);
  const signing = issuer ? ['-CA', `${issuer}.pem`, '-CAkey', `${issuer}.key`] : ['-signkey', `${name}.key`];
  await openssl(['x509', '-req', '-in', `${name}.csr`, ...signing, '-set_serial', serial, '-days', '30', '-extfile', `${name}.cnf`, '-out', `${name}.pem`]);
  return fs.promises.readFile(file(`${name}.pem`), 'utf8');
}

async function readBody(request: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/**
 * The stand-in for a third party's CA (tests only): OpenSSL answers OCSP from its index through a
 * delegated responder certificate, serves its CRL, and on /forged-ocsp answers through a responder
 * the CA never delegated to.
 */
async function answerStandIn(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
  const respond = async (signer: string) => {
    const id = Math.random().toString(36).slice(2);
    await fs.promises.writeFile(file(`request-${id}.der`), await readBody(request));
    await openssl([
      'ocsp',
      '-index',
      'index.txt',
      '-CA',
      'ca.pem',
      '-rsigner',
      `${signer}.pem`,
      '-rkey',
      `${signer}.key`,
      '-reqin',
      `request-${id}.der`,
      '-respout',
      `response-${id}.der`,
      '-nmin',
      '60',
    ]);
    response.writeHead(200, { 'content-type': 'application/ocsp-response' }).end(await fs.promises.readFile(file(`response-${id}.der`)));
  };
  if (request.method === 'POST' && request.url === '/ocsp') return respond('responder');
  if (request.method === 'POST' && request.url === '/forged-ocsp') return respond('mallory');
  if (request.method === 'GET' && request.url === '/crl') {
    response.writeHead(200, { 'content-type': 'application/pkix-crl' }).end(await fs.promises.readFile(file('crl.der')));
    return;
  }
  response.writeHead(500).end('down for maintenance');
}

let thirdParty: { caPem: string; goodPem: string; revokedPem: string; silentPem: string; forgedPem: string; responderPem: string };

beforeAll(async () => {
  t = await createTestApp();
  workDirectory = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'ron-revocation-'));
  standIn = http.createServer((request, response) => {
    answerStandIn(request, response).catch(() => response.writeHead(500).end());
  });
  await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve));
  standInUrl = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`;

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
    '/CN=Third Party Notary CA',
    '-days',
    '3650',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  const responderPem = await createCertificate('responder', 'Third Party OCSP', '100', ['extendedKeyUsage=OCSPSigning']);
  await createCertificate('mallory', 'Mallory OCSP', '101', ['extendedKeyUsage=OCSPSigning'], null);
  const leaf = ['keyUsage=critical,digitalSignature,nonRepudiation'];
  const goodPem = await createCertificate('good', 'Gail Good', '0x1001', [
    ...leaf,
    `authorityInfoAccess=OCSP;URI:${standInUrl}/ocsp`,
    `crlDistributionPoints=URI:${standInUrl}/crl`,
  ]);
  const revokedPem = await createCertificate('revoked', 'Rob Revoked', '0x1002', [
    ...leaf,
    `authorityInfoAccess=OCSP;URI:${standInUrl}/broken-ocsp`,
    `crlDistributionPoints=URI:ftp://127.0.0.1/crl,URI:${standInUrl}/crl`,
  ]);
  const silentPem = await createCertificate('silent', 'Sam Silent', '0x1003', leaf);
  const forgedPem = await createCertificate('forged', 'Fay Forged', '0x1004', [...leaf, `authorityInfoAccess=OCSP;URI:${standInUrl}/forged-ocsp`]);
  await fs.promises.writeFile(
    file('index.txt'),
    [
      'V\t300101000000Z\t\t1001\tunknown\t/CN=Gail Good',
      'R\t300101000000Z\t260101000000Z,keyCompromise\t1002\tunknown\t/CN=Rob Revoked',
      'V\t300101000000Z\t\t1004\tunknown\t/CN=Fay Forged',
      '',
    ].join('\n'),
  );
  await fs.promises.writeFile(
    file('ca.cnf'),
    '[ca]\ndefault_ca = tp\n[tp]\ndatabase = index.txt\ndefault_md = sha256\ndefault_crl_days = 7\ncertificate = ca.pem\nprivate_key = ca.key\n',
  );
  await openssl(['ca', '-gencrl', '-config', 'ca.cnf', '-out', 'crl.pem']);
  await openssl(['crl', '-in', 'crl.pem', '-outform', 'DER', '-out', 'crl.der']);
  thirdParty = { caPem: await fs.promises.readFile(file('ca.pem'), 'utf8'), goodPem, revokedPem, silentPem, forgedPem, responderPem };
});

afterAll(async () => {
  await new Promise((resolve) => standIn?.close(resolve));
  await t?.close();
  if (workDirectory) await fs.promises.rm(workDirectory, { recursive: true, force: true });
});

/** fetch that counts its calls, so a test can show the platform's own certificates need no network. */
function countingFetch() {
  const calls: string[] = [];
  const counted: typeof fetch = async (input, init) => {
    calls.push(String(input));
    return fetch(input, init);
  };
  return { calls, fetch: counted };
}

const derToPem = (der: Buffer) => `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END CERTIFICATE-----\n`;

describe('collectValidationData', () => {
  it('makes the platform’s own OCSP response without the network, verifiable against the platform CA', async () => {
    const user = await t.createUser({ roles: ['notary'], name: 'Pat Platform' });
    const credentials = await getOrIssueNotaryCredentials(t.db, t.secretsKey, {
      userId: user.id,
      name: user.name,
      email: user.email,
      commissionState: 'TX',
      commissionNumber: 'TX-9',
      commissionExpiresOn: '2031-06-30',
    });
    const { calls, fetch: counted } = countingFetch();
    const data = await collectValidationData(t.db, t.secretsKey, [credentials.certificatePem, ...credentials.chainPems], {
      fetch: counted,
      isPrivateAllowed: true,
    });
    expect(calls).toEqual([]);
    expect(data.missing).toEqual([]);
    expect(data.crls).toEqual([]);
    expect(data.certificates.map(derToPem).map((pem) => pem.replace(/\s/g, ''))).toEqual(
      [credentials.certificatePem, (await getOrCreatePlatformCa(t.db, t.secretsKey)).certificatePem].map((pem) => pem.replace(/\s/g, '')),
    );
    expect(data.ocspResponses).toHaveLength(1);
    await fs.promises.writeFile(file('platform-ca.pem'), credentials.chainPems[0] ?? '');
    await fs.promises.writeFile(file('platform-leaf.pem'), credentials.certificatePem);
    await fs.promises.writeFile(file('platform-response.der'), data.ocspResponses[0] ?? Buffer.alloc(0));
    const text = await openssl([
      'ocsp',
      '-respin',
      'platform-response.der',
      '-issuer',
      'platform-ca.pem',
      '-cert',
      'platform-leaf.pem',
      '-CAfile',
      'platform-ca.pem',
      '-no_nonce',
      '-resp_text',
    ]);
    expect(text).toContain('Response verify OK');
    expect(text).toContain('platform-leaf.pem: good');
  });

  it('fetches a third party’s OCSP answer from a delegated responder, and embeds the responder’s certificate', async () => {
    const data = await collectValidationData(t.db, t.secretsKey, [thirdParty.goodPem, thirdParty.caPem], { isPrivateAllowed: true });
    expect(data.missing).toEqual([]);
    expect(data.crls).toEqual([]);
    expect(data.ocspResponses).toHaveLength(1);
    expect(data.certificates.map((der) => derToPem(der).replace(/\s/g, ''))).toEqual(
      [thirdParty.goodPem, thirdParty.caPem, thirdParty.responderPem].map((pem) => pem.replace(/\s/g, '')),
    );
    await fs.promises.writeFile(file('good-response.der'), data.ocspResponses[0] ?? Buffer.alloc(0));
    const text = await openssl(['ocsp', '-respin', 'good-response.der', '-issuer', 'ca.pem', '-cert', 'good.pem', '-CAfile', 'ca.pem', '-no_nonce']);
    expect(text).toContain('Response verify OK');
    expect(text).toContain('good.pem: good');
  });

  it('falls back to the CRL when the OCSP responder fails, skipping addresses that are not http or https', async () => {
    const { calls, fetch: counted } = countingFetch();
    const data = await collectValidationData(t.db, t.secretsKey, [thirdParty.revokedPem, thirdParty.caPem], { fetch: counted, isPrivateAllowed: true });
    expect(calls).toEqual([`${standInUrl}/broken-ocsp`, `${standInUrl}/crl`]);
    expect(data.missing).toEqual([]);
    expect(data.ocspResponses).toEqual([]);
    expect(data.crls).toHaveLength(1);
    await fs.promises.writeFile(file('fetched.crl'), data.crls[0] ?? Buffer.alloc(0));
    const text = await openssl(['crl', '-inform', 'DER', '-in', 'fetched.crl', '-CAfile', 'ca.pem', '-noout', '-text']);
    expect(text).toContain('verify OK');
    expect(text).toContain('Serial Number: 1002');
  });

  it('says so, in a sentence, when the issuer publishes nothing or answers with a signature it did not delegate', async () => {
    const silent = await collectValidationData(t.db, t.secretsKey, [thirdParty.silentPem, thirdParty.caPem], { isPrivateAllowed: true });
    expect(silent.ocspResponses).toEqual([]);
    expect(silent.missing).toEqual([
      'The issuer of the certificate of Sam Silent (serial 1003) publishes no OCSP responder or CRL, so its revocation status is not in the document.',
    ]);
    const forged = await collectValidationData(t.db, t.secretsKey, [thirdParty.forgedPem, thirdParty.caPem], { isPrivateAllowed: true });
    expect(forged.ocspResponses).toEqual([]);
    expect(forged.certificates).toHaveLength(2);
    expect(forged.missing).toEqual([
      `The revocation status of the certificate of Fay Forged (serial 1004) could not be had: its OCSP responder ${standInUrl}/forged-ocsp answered with a signature from neither the issuer nor a responder it delegated to.`,
    ]);
  });

  it('names a certificate whose issuer is not in the chain, and a responder that does not answer in time', async () => {
    const alone = await collectValidationData(t.db, t.secretsKey, [thirdParty.goodPem]);
    expect(alone.missing).toEqual([
      'The revocation status of the certificate of Gail Good (serial 1001) could not be checked: its issuer’s certificate is not in the chain.',
    ]);
    const hanging: typeof fetch = (_input, init) =>
      new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal?.reason as Error)));
    const slow = await collectValidationData(t.db, t.secretsKey, [thirdParty.goodPem, thirdParty.caPem], { fetch: hanging, isPrivateAllowed: true });
    expect(slow.missing).toEqual([
      `The revocation status of the certificate of Gail Good (serial 1001) could not be had: its OCSP responder ${standInUrl}/ocsp did not answer in time; its CRL at ${standInUrl}/crl did not arrive in time.`,
    ]);
  }, 20_000);
});
