import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '#shared/roles.ts';
import { notarizedDocuments, signingCredentials } from '#server/db/schema/index.ts';
import { getOrIssueNotaryCredentials, type NotaryIdentity } from '#server/providers/signing/certificates.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, type JobKit } from '#test/job-fixtures.ts';
import { recordMedia } from '#test/live-session.ts';
import { startTsaStandIn, type TsaStandIn } from '#test/tsa-stand-in.ts';

/**
 * A hook run when the seal asks the timestamp authority for its signature's timestamp: after the seal
 * picked its certificate, before it stores anything. The app's TSA_URL is a small proxy in front of a
 * real OpenSSL authority that runs the hook first (no module mock: the suite shares its module cache).
 */
const signing = { before: null as null | (() => Promise<void>) };
let tsa: TsaStandIn;
let tsaProxy: http.Server;

async function startTsaProxy(target: string): Promise<string> {
  tsaProxy = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const hook = signing.before;
      signing.before = null;
      void (async () => {
        await hook?.();
        const answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/timestamp-query' }, body: Buffer.concat(chunks) });
        response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/timestamp-reply' });
        response.end(Buffer.from(await answer.arrayBuffer()));
      })().catch(() => {
        response.writeHead(500);
        response.end();
      });
    });
  });
  await new Promise<void>((resolve) => tsaProxy.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(tsaProxy.address() as AddressInfo).port}/`;
}

let t: TestApp;
let kit: JobKit;
let admin: TestUser;
const malformed = Buffer.from([0x30, 0x03, 0x0a, 0x01, 0x01]);

beforeAll(async () => {
  tsa = await startTsaStandIn();
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000', TSA_URL: await startTsaProxy(tsa.url) });
  kit = createJobKit(t);
  admin = await t.createUser({ roles: ['admin'], name: 'Ada Admin' });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => tsaProxy?.close(resolve));
  await tsa?.close();
});

async function issue(name: string): Promise<{ user: TestUser; identity: NotaryIdentity; serialNumber: string }> {
  const user = await t.createUser({ roles: ['notary'], name });
  const identity = { userId: user.id, name, email: user.email, commissionState: 'TX', commissionNumber: 'TX-9', commissionExpiresOn: '2031-06-30' };
  return { user, identity, serialNumber: (await getOrIssueNotaryCredentials(t.db, t.secretsKey, identity)).serialNumber };
}

const revoke = async (userId: string, serial: string, payload: unknown, headers?: Record<string, string>) =>
  t.app.inject({
    method: 'POST',
    url: `/api/admin/users/${userId}/certificates/${serial}/revoke`,
    headers: headers ?? (await t.headersFor(admin)),
    payload: payload as Record<string, unknown>,
  });

describe('attacks on certificate revocation', () => {
  it('refuses every role but administrator, and anonymous callers, on both admin routes', async () => {
    const target = await issue('Tina Target');
    const roles: Role[] = ['notary', 'title', 'title_agent', 'witness', 'observer', 'billing', 'finance', 'signer'];
    for (const role of roles) {
      const headers = await t.signInAs(await t.createUser({ roles: [role] }));
      const list = await t.app.inject({ method: 'GET', url: `/api/admin/users/${target.user.id}/certificates`, headers });
      expect(list.statusCode, role).toBe(403);
      expect((await revoke(target.user.id, target.serialNumber, { reason: 'keyCompromise' }, headers)).statusCode, role).toBe(403);
    }
    // The notary themselves may not revoke (nor un-revoke) their own certificate.
    expect((await revoke(target.user.id, target.serialNumber, { reason: 'keyCompromise' }, await t.signInAs(target.user))).statusCode).toBe(403);
    expect((await revoke(target.user.id, target.serialNumber, { reason: 'keyCompromise' }, {})).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: `/api/admin/users/${target.user.id}/certificates` })).statusCode).toBe(401);
    const [row] = await t.db.select().from(signingCredentials).where(eq(signingCredentials.serialNumber, target.serialNumber));
    expect(row?.revokedAt).toBeNull();
  });

  it('refuses bad serials, reasons and bodies with a sentence, never a 500', async () => {
    const target = await issue('Bea Bad-Input');
    const serials = ['zz', 'a'.repeat(65), '%00', '..%2F..%2F', `${target.serialNumber}%00`, '-1'];
    for (const serial of serials) {
      const res = await revoke(target.user.id, serial, { reason: 'keyCompromise' });
      expect(res.statusCode, serial).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, serial).toBeLessThan(500);
    }
    for (const payload of [
      {},
      { reason: 'keyCompromise\u0000' },
      { reason: '\ud800' },
      { reason: 'x'.repeat(200_000) },
      { reason: ['keyCompromise'] },
      { reason: { toString: 'keyCompromise' } },
      { reason: 'removeFromCRL' },
    ]) {
      const res = await revoke(target.user.id, target.serialNumber, payload);
      expect(res.statusCode, JSON.stringify(payload).slice(0, 60)).toBe(400);
      expect(res.json()).toMatchObject({ message: expect.any(String) });
    }
    const asText = await t.app.inject({
      method: 'POST',
      url: `/api/admin/users/${target.user.id}/certificates/${target.serialNumber}/revoke`,
      headers: { ...(await t.headersFor(admin)), 'content-type': 'text/plain' },
      payload: 'keyCompromise',
    });
    expect(asText.statusCode).toBeGreaterThanOrEqual(400);
    expect(asText.statusCode).toBeLessThan(500);
    expect((await revoke('not-a-uuid', target.serialNumber, { reason: 'keyCompromise' })).statusCode).toBe(400);
    expect((await revoke('00000000-0000-4000-8000-000000000000', target.serialNumber, { reason: 'keyCompromise' })).statusCode).toBe(404);
    const [row] = await t.db.select().from(signingCredentials).where(eq(signingCredentials.serialNumber, target.serialNumber));
    expect(row?.revokedAt).toBeNull();
  });

  it('revokes once when two administrators revoke at the same moment, the serial written any way', async () => {
    const target = await issue('Ray Race');
    const [first, second] = await Promise.all([
      revoke(target.user.id, target.serialNumber.toUpperCase(), { reason: 'keyCompromise' }),
      revoke(target.user.id, `00${target.serialNumber}`, { reason: 'superseded' }),
    ]);
    expect([first.statusCode, second.statusCode].sort()).toEqual([200, 409]);
    const rows = await t.db.select().from(signingCredentials).where(eq(signingCredentials.serialNumber, target.serialNumber));
    expect(rows).toHaveLength(1);
  });

  it('answers hostile OCSP requests with malformedRequest or a sentence, never a 500', async () => {
    const posts: Array<{ type?: string; payload: string | Buffer }> = [
      { type: 'application/json', payload: '{"a":1}' },
      { type: 'text/plain', payload: 'MIIB' },
      { type: 'application/octet-stream', payload: Buffer.from([0x30, 0x00]) },
      { type: 'application/ocsp-request', payload: Buffer.from([0x30, 0x84, 0xff, 0xff, 0xff, 0xff]) },
      { type: 'application/ocsp-request', payload: Buffer.concat([Buffer.from([0x30, 0x80]), Buffer.alloc(4000, 0x30)]) },
      { type: 'application/ocsp-request; charset=utf-8', payload: Buffer.alloc(5, 0) },
    ];
    for (const { type, payload } of posts) {
      const res = await t.app.inject({ method: 'POST', url: '/pki/ocsp', headers: type ? { 'content-type': type } : {}, payload });
      expect(res.statusCode, type).toBeLessThan(500);
      if (res.statusCode === 200) expect(res.rawPayload, type).toEqual(malformed);
    }
    for (const encoded of ['%00', '%ED%A0%80', '%2F%2F%2F', 'A'.repeat(14_000), 'MA%3D%3D%3D%3D', '..%2F..%2Fca.crt', '']) {
      const res = await t.app.inject({ method: 'GET', url: `/pki/ocsp/${encoded}` });
      expect(res.statusCode, encoded.slice(0, 20)).toBeLessThan(500);
      if (res.statusCode === 200) expect(res.rawPayload).toEqual(malformed);
    }
  });

  it('seals no document with a certificate revoked while the seal was under way', async () => {
    const notary = await kit.createNotary({ name: 'Vera Racing' });
    const signer = await t.createUser({ roles: ['signer'], name: 'Sid Signer' });
    await kit.saveSignature(signer);
    const job = await kit.createJob(notary, { notaryId: notary.id, signers: [{ name: signer.name, email: signer.email }] });
    expect((await kit.acceptInvitation(signer)).statusCode).toBe(200);
    const documentId = await kit.uploadPdf(notary, job.id);
    await kit.moveJob(notary, job.id, ['ready']);
    const participantId = job.participants[0]?.id ?? '';
    const recording = await kit.startRecordedSession(notary, job.id, [signer]);
    const fields = `/api/jobs/${job.id}/documents/${documentId}/fields`;
    const placed = await kit.call(notary, 'POST', fields, { type: 'signature', participantId, page: 1, x: 0.1, y: 0.7, width: 0.3, height: 0.06 });
    expect((await kit.call(signer, 'POST', `${fields}/${placed.json().id}/fill`, { version: 1 })).statusCode).toBe(200);
    await recordMedia(t, recording.recordingId, [participantId, 'notary']);
    const bypass = await kit.call(notary, 'POST', `/api/jobs/${job.id}/signers/${participantId}/id-bypass`, {
      enabled: true,
      reason: 'Identity step not under test here',
      method: 'personal_knowledge',
    });
    expect(bypass.statusCode, bypass.body).toBe(200);
    expect((await kit.call(notary, 'POST', `/api/jobs/${job.id}/documents/${documentId}/complete`)).statusCode).toBe(200);
    // The administrator revokes the notary’s certificate after the seal picked it, while it timestamps the signature.
    let revokedSerial = '';
    signing.before = async () => {
      const [credential] = await t.db.select().from(signingCredentials).where(eq(signingCredentials.userId, notary.id));
      revokedSerial = credential?.serialNumber ?? '';
      const res = await revoke(notary.id, revokedSerial, { reason: 'keyCompromise' });
      expect(res.statusCode, res.body).toBe(200);
    };
    // The recording reaches the moment of the seal: on a loaded machine the calls above can outlast the state's limit on a gap.
    await recordMedia(t, recording.recordingId, [participantId, 'notary']);
    const sealed = await kit.call(notary, 'POST', `/api/jobs/${job.id}/complete-job`).catch(() => null);
    expect(revokedSerial, sealed?.body).not.toBe('');
    const outputs = await t.db
      .select({ serial: signingCredentials.serialNumber })
      .from(notarizedDocuments)
      .innerJoin(signingCredentials, eq(signingCredentials.id, notarizedDocuments.credentialId))
      .where(eq(notarizedDocuments.jobId, job.id));
    expect(outputs.map((output) => output.serial)).not.toContain(revokedSerial);
    expect(sealed?.statusCode).toBe(409);
    expect(sealed?.json().message).toContain('revoked');
    // Sealing again gets a new certificate and succeeds.
    expect((await kit.sealJob(notary, job.id)).status).toBe('completed');
    const [output] = await t.db
      .select({ serial: signingCredentials.serialNumber })
      .from(notarizedDocuments)
      .innerJoin(signingCredentials, eq(signingCredentials.id, notarizedDocuments.credentialId))
      .where(eq(notarizedDocuments.jobId, job.id));
    expect(output?.serial).not.toBe(revokedSerial);
  }, 120_000);
});
