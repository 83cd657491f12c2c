import { execFile } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeAuditEvent } from '#shared/audit-sentences.ts';
import {
  getOrCreatePlatformCa,
  getOrIssueNotaryCredentials,
  getOrIssuePlatformSignerCredentials,
  type NotaryIdentity,
} from '#server/providers/signing/certificates.ts';
import { createTestApp, type TestApp, type TestUser } from '../../../../test/create-test-app.ts';

const run = promisify(execFile);

let t: TestApp;
let baseUrl: string;
let workDirectory: string;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  admin = await t.createUser({ roles: ['admin'], name: 'Ada Admin' });
  workDirectory = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'ron-pki-'));
  await fs.promises.writeFile(path.join(workDirectory, 'ca.pem'), (await getOrCreatePlatformCa(t.db, t.secretsKey)).certificatePem);
});

afterAll(async () => {
  await t?.close();
  if (workDirectory) await fs.promises.rm(workDirectory, { recursive: true, force: true });
});

const file = (name: string) => path.join(workDirectory, name);

async function openssl(args: string[]): Promise<string> {
  const { stdout, stderr } = await run('openssl', args, { cwd: workDirectory });
  return `${stdout}\n${stderr}`;
}

async function issueNotaryCertificate(name: string): Promise<{ user: TestUser; identity: NotaryIdentity; serialNumber: string; pemFile: string }> {
  const user = await t.createUser({ roles: ['notary'], name });
  const identity = { userId: user.id, name, email: user.email, commissionState: 'TX', commissionNumber: 'TX-77', commissionExpiresOn: '2031-06-30' };
  const credentials = await getOrIssueNotaryCredentials(t.db, t.secretsKey, identity);
  const pemFile = `${user.id}.pem`;
  await fs.promises.writeFile(file(pemFile), credentials.certificatePem);
  return { user, identity, serialNumber: credentials.serialNumber, pemFile };
}

const askOcsp = (pemFile: string) => openssl(['ocsp', '-issuer', 'ca.pem', '-cert', pemFile, '-url', `${baseUrl}/pki/ocsp`, '-CAfile', 'ca.pem', '-resp_text']);

async function revoke(userId: string, serialNumber: string, reason: string, headers?: Record<string, string>) {
  return t.app.inject({
    method: 'POST',
    url: `/api/admin/users/${userId}/certificates/${serialNumber}/revoke`,
    headers: headers ?? (await t.headersFor(admin)),
    payload: { reason },
  });
}

describe('the platform CA’s revocation endpoints', () => {
  it('names its CRL, OCSP responder and certificate in every certificate it issues', async () => {
    const notary = await issueNotaryCertificate('Nina Named');
    const text = await openssl(['x509', '-in', notary.pemFile, '-noout', '-text']);
    expect(text).toContain('X509v3 CRL Distribution Points');
    expect(text).toContain(`URI:${t.config.publicUrl}/pki/crl`);
    expect(text).toContain(`OCSP - URI:${t.config.publicUrl}/pki/ocsp`);
    expect(text).toContain(`CA Issuers - URI:${t.config.publicUrl}/pki/ca.crt`);

    await fs.promises.writeFile(file('platform-signer.pem'), (await getOrIssuePlatformSignerCredentials(t.db, t.secretsKey)).certificatePem);
    const signer = await openssl(['x509', '-in', 'platform-signer.pem', '-noout', '-ext', 'crlDistributionPoints,authorityInfoAccess']);
    expect(signer).toContain(`URI:${t.config.publicUrl}/pki/crl`);
    expect(signer).toContain(`OCSP - URI:${t.config.publicUrl}/pki/ocsp`);
  });

  it('re-issues, on next use, a certificate that names another PUBLIC_URL’s revocation addresses', async () => {
    const user = await t.createUser({ roles: ['notary'], name: 'Moira Moved' });
    const identity = {
      userId: user.id,
      name: user.name,
      email: user.email,
      commissionState: 'TX',
      commissionNumber: 'TX-78',
      commissionExpiresOn: '2031-06-30',
    };
    const before = await getOrIssueNotaryCredentials(t.db, t.secretsKey, identity, { publicUrl: 'https://old.example' });
    expect(before.certificatePem).toBe((await getOrIssueNotaryCredentials(t.db, t.secretsKey, identity, { publicUrl: 'https://old.example' })).certificatePem);
    const after = await getOrIssueNotaryCredentials(t.db, t.secretsKey, identity);
    expect(after.serialNumber).not.toBe(before.serialNumber);
    await fs.promises.writeFile(file('moved.pem'), after.certificatePem);
    expect(await openssl(['x509', '-in', 'moved.pem', '-noout', '-ext', 'crlDistributionPoints'])).toContain(`URI:${t.config.publicUrl}/pki/crl`);
  });

  it('serves the CA certificate as DER that openssl reads, cacheable for a day', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/pki/ca.crt' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pkix-cert');
    expect(res.headers['cache-control']).toBe('public, max-age=86400');
    await fs.promises.writeFile(file('ca.der'), res.rawPayload);
    expect(await openssl(['x509', '-inform', 'DER', '-in', 'ca.der', '-noout', '-subject'])).toContain('CN = Open RON Platform CA');
  });

  it('answers good, then revoked with the time and reason the moment an administrator revokes, over OCSP and in the CRL', async () => {
    const notary = await issueNotaryCertificate('Rita Revoked');
    const before = await askOcsp(notary.pemFile);
    expect(before).toContain('Response verify OK');
    expect(before).toContain(`${notary.pemFile}: good`);
    expect(before).toContain('OCSP Nonce');
    expect(before).toMatch(/Next Update: /);

    const revoked = await revoke(notary.user.id, notary.serialNumber, 'keyCompromise');
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json()).toMatchObject({
      certificate: { serialNumber: notary.serialNumber, status: 'revoked', revocationReason: 'keyCompromise', revokedByName: 'Ada Admin' },
      message: expect.stringContaining('Rita Revoked'),
    });

    const after = await askOcsp(notary.pemFile);
    expect(after).toContain('Response verify OK');
    expect(after).toContain(`${notary.pemFile}: revoked`);
    expect(after).toContain('Reason: keyCompromise');
    expect(after).toMatch(/Revocation Time: /);

    const crl = await t.app.inject({ method: 'GET', url: '/pki/crl' });
    expect(crl.statusCode).toBe(200);
    expect(crl.headers['content-type']).toBe('application/pkix-crl');
    expect(crl.headers['cache-control']).toBe('public, no-cache');
    await fs.promises.writeFile(file('crl.der'), crl.rawPayload);
    const crlText = await openssl(['crl', '-inform', 'DER', '-in', 'crl.der', '-CAfile', 'ca.pem', '-noout', '-text']);
    expect(crlText).toContain('verify OK');
    expect(crlText).toContain('Version 2');
    expect(crlText).toContain('X509v3 CRL Number');
    expect(crlText).toContain(`Serial Number: ${notary.serialNumber.toUpperCase()}`);
    expect(crlText).toContain('Key Compromise');
    expect(crlText).toMatch(/Next Update: /);

    // The next seal gets a new certificate, which is good.
    const renewed = await getOrIssueNotaryCredentials(t.db, t.secretsKey, notary.identity);
    expect(renewed.serialNumber).not.toBe(notary.serialNumber);
    await fs.promises.writeFile(file('renewed.pem'), renewed.certificatePem);
    expect(await askOcsp('renewed.pem')).toContain('renewed.pem: good');

    // A second revocation of the same certificate is refused in words.
    const again = await revoke(notary.user.id, notary.serialNumber, 'superseded');
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ error: 'conflict', message: expect.stringMatching(/^This certificate was already revoked on \d{4}-\d\d-\d\d\.$/) });
  });

  it('records the revocation on the account as a sentence, with before and after', async () => {
    const notary = await issueNotaryCertificate('Audrey Audited');
    expect((await revoke(notary.user.id, notary.serialNumber, 'privilegeWithdrawn')).statusCode).toBe(200);
    const res = await t.app.inject({ method: 'GET', url: `/api/admin/users/${notary.user.id}/audit`, headers: await t.headersFor(admin) });
    const event = (res.json().items as Array<{ action: string; data: Record<string, unknown>; actorName: string; actorId: string }>).find(
      (item) => item.action === 'notary.certificate_revoked',
    );
    expect(event?.data).toMatchObject({
      serialNumber: notary.serialNumber,
      reason: 'privilegeWithdrawn',
      before: { status: 'valid' },
      after: { status: 'revoked', reason: 'privilegeWithdrawn' },
    });
    expect(
      describeAuditEvent({ action: event?.action ?? '', actorId: event?.actorId ?? null, actorName: event?.actorName ?? null, data: event?.data ?? {} }),
    ).toBe(
      `Ada Admin revoked the signing certificate of Audrey Audited (serial ${notary.serialNumber}), which was valid until then, because the notary may no longer notarize; their next notarization gets a new certificate.`,
    );
  });

  it('answers the GET form of OCSP, and unknown for a serial the CA never issued', async () => {
    const notary = await issueNotaryCertificate('Gina Get');
    // No nonce: a GET answer is meant to be cacheable (the POST test checks the nonce is echoed).
    await openssl(['ocsp', '-issuer', 'ca.pem', '-cert', notary.pemFile, '-serial', '0x1234', '-no_nonce', '-reqout', 'get-request.der']);
    const encoded = encodeURIComponent((await fs.promises.readFile(file('get-request.der'))).toString('base64'));
    const res = await t.app.inject({ method: 'GET', url: `/pki/ocsp/${encoded}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/ocsp-response');
    expect(res.headers['cache-control']).toBe('public, no-cache');
    await fs.promises.writeFile(file('get-response.der'), res.rawPayload);
    const text = await openssl([
      'ocsp',
      '-respin',
      'get-response.der',
      '-issuer',
      'ca.pem',
      '-cert',
      notary.pemFile,
      '-serial',
      '0x1234',
      '-no_nonce',
      '-CAfile',
      'ca.pem',
      '-resp_text',
    ]);
    expect(text).toContain('Response verify OK');
    expect(text).toContain(`${notary.pemFile}: good`);
    expect(text).toContain('0x1234: unknown');
  });

  it('answers malformedRequest, never an error page, to a request that is no OCSP request', async () => {
    const malformed = Buffer.from([0x30, 0x03, 0x0a, 0x01, 0x01]);
    for (const payload of [Buffer.from('not an OCSP request at all'), Buffer.alloc(0), Buffer.from([0x30, 0x82, 0xff, 0xff, 0x01])]) {
      const res = await t.app.inject({ method: 'POST', url: '/pki/ocsp', headers: { 'content-type': 'application/ocsp-request' }, payload });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/ocsp-response');
      expect(res.rawPayload).toEqual(malformed);
    }
    for (const encoded of ['%21%21', 'bm90IGFuIE9DU1AgcmVxdWVzdA%3D%3D', 'A', '!!!', 'QUFB'.repeat(500)]) {
      const res = await t.app.inject({ method: 'GET', url: `/pki/ocsp/${encoded}` });
      expect(res.statusCode).toBe(200);
      expect(res.rawPayload).toEqual(malformed);
    }
    await fs.promises.writeFile(file('malformed.der'), malformed);
    // openssl exits 1 on a responder error and says which.
    const refused = await openssl(['ocsp', '-respin', 'malformed.der', '-resp_text', '-noverify']).catch(
      (error: { stdout: string; stderr: string }) => `${error.stdout}${error.stderr}`,
    );
    expect(refused).toContain('Responder Error: malformedrequest (1)');
  });

  it('refuses a huge OCSP request with a sentence before reading it', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/pki/ocsp',
      headers: { 'content-type': 'application/ocsp-request' },
      payload: Buffer.alloc(64 * 1024, 0x30),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ error: 'payload_too_large', message: 'An OCSP request is at most 10 KB; this one is larger.' });
  });

  it('limits each network to 120 requests a minute, then says how long to wait', async () => {
    const from = { remoteAddress: '198.51.100.7' };
    for (let count = 0; count < 120; count += 1) expect((await t.app.inject({ method: 'GET', url: '/pki/ca.crt', ...from })).statusCode).toBe(200);
    const refused = await t.app.inject({ method: 'GET', url: '/pki/crl', ...from });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({
      error: 'rate_limited',
      message: expect.stringMatching(/^Too many certificate status requests from this network\. Please wait \d+ seconds and try again\.$/),
    });
    expect((await t.app.inject({ method: 'GET', url: '/pki/crl', remoteAddress: '198.51.100.8' })).statusCode).toBe(200);
  });

  it('lets only administrators see or revoke a notary’s certificates', async () => {
    const notary = await issueNotaryCertificate('Petra Protected');
    const list = await t.app.inject({ method: 'GET', url: `/api/admin/users/${notary.user.id}/certificates`, headers: await t.headersFor(admin) });
    expect(list.json()).toEqual({
      items: [expect.objectContaining({ serialNumber: notary.serialNumber, status: 'valid', revokedAt: null, revocationReason: null, revokedByName: null })],
      uploaded: null,
    });
    const signer = await t.createUser({ roles: ['signer'] });
    for (const headers of [await t.signInAs(notary.user), await t.signInAs(signer)]) {
      const seen = await t.app.inject({ method: 'GET', url: `/api/admin/users/${notary.user.id}/certificates`, headers });
      expect(seen.statusCode).toBe(403);
      const refused = await revoke(notary.user.id, notary.serialNumber, 'keyCompromise', headers);
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ error: 'forbidden' });
    }
    const anonymous = await t.app.inject({
      method: 'POST',
      url: `/api/admin/users/${notary.user.id}/certificates/${notary.serialNumber}/revoke`,
      payload: { reason: 'keyCompromise' },
    });
    expect(anonymous.statusCode).toBe(401);
    expect(await askOcsp(notary.pemFile)).toContain(`${notary.pemFile}: good`);

    const badReason = await revoke(notary.user.id, notary.serialNumber, 'certificateHold');
    expect(badReason.statusCode).toBe(400);
    expect(badReason.json().message).toContain('Choose one of the reasons');
    const otherNotary = await issueNotaryCertificate('Olga Other');
    const wrongOwner = await revoke(otherNotary.user.id, notary.serialNumber, 'keyCompromise');
    expect(wrongOwner.statusCode).toBe(404);
    expect(wrongOwner.json()).toEqual({ error: 'not_found', message: 'This notary has no platform certificate with that serial number.' });
  });
});
