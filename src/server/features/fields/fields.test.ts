import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEvent } from '#shared/audit.ts';
import { describeAuditEvent } from '#shared/audit-sentences.ts';
import { getCalendarDay } from '#shared/dates.ts';
import { documentFields, jobParticipants, notaryProfiles, userSignatures } from '#server/db/schema/index.ts';
import { createLocalStorage } from '#server/providers/storage/storage.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { startRecordedSession } from '#test/live-session.ts';
import { buildMultipart, makePdf } from '#test/pdf-fixtures.ts';

/** A 1x1 transparent PNG. */
const tinyPng = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

let t: TestApp;
let notary: TestUser;
let signer: TestUser;
let otherSigner: TestUser;
let notaryHeaders: Record<string, string>;
let signerHeaders: Record<string, string>;
let otherHeaders: Record<string, string>;

beforeAll(async () => {
  t = await createTestApp();
  notary = await t.createUser({ roles: ['notary'], name: 'Nora Notary' });
  // By hand, not createNotary: the certificate test below expects this fixed commission number in
  // its text, and createNotary makes a random one.
  await t.db.insert(notaryProfiles).values({
    userId: notary.id,
    commissionState: 'TX',
    commissionNumber: 'TX-1',
    commissionExpiresOn: '2031-01-01',
    county: 'Travis',
    approvalStatus: 'approved',
  });
  signer = await t.createUser({ roles: ['signer'], name: 'Sam Signer' });
  otherSigner = await t.createUser({ roles: ['signer'], name: 'Olga Other' });
  notaryHeaders = await t.signInAs(notary);
  signerHeaders = await t.signInAs(signer);
  otherHeaders = await t.signInAs(otherSigner);
});
afterAll(async () => t.close());

async function saveSignature(user: TestUser, kind: 'signature' | 'initials' = 'signature') {
  const file = path.join(os.tmpdir(), `sig-${user.id}-${kind}.png`);
  fs.writeFileSync(file, tinyPng);
  const sha256 = createHash('sha256').update(tinyPng).digest('hex');
  await createLocalStorage(t.blobRoot).putFile(file, sha256, 'image/png');
  await t.db.insert(userSignatures).values({ userId: user.id, kind, method: 'upload', storageKey: sha256 });
}

/** A job the notary runs, with both signers on it (accepted), one PDF, in the given status. */
async function createJob(status: 'draft' | 'in_session' = 'in_session') {
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/jobs',
    headers: notaryHeaders,
    payload: {
      title: 'Affidavit',
      notarizationType: 'jurat',
      signers: [
        { name: signer.name, email: signer.email },
        { name: otherSigner.name, email: otherSigner.email },
      ],
    },
  });
  expect(created.statusCode).toBe(201);
  const job = created.json() as { id: string; participants: Array<{ id: string; email: string }> };
  for (const participant of job.participants) {
    const user = participant.email === signer.email ? signer : otherSigner;
    await t.db.update(jobParticipants).set({ userId: user.id }).where(eq(jobParticipants.id, participant.id));
  }
  const upload = buildMultipart([{ name: 'affidavit.pdf', content: await makePdf(2) }]);
  const uploaded = await t.app.inject({
    method: 'POST',
    url: `/api/jobs/${job.id}/documents`,
    headers: { ...notaryHeaders, ...upload.headers },
    payload: upload.payload,
  });
  const documentId = uploaded.json().items[0].id as string;
  const participantOf = (user: TestUser) => job.participants.find((participant) => participant.email === user.email)?.id as string;
  let recording: { sessionId: string; recordingId: string } | null = null;
  if (status === 'in_session') {
    const moved = await t.app.inject({ method: 'PATCH', url: `/api/jobs/${job.id}`, headers: notaryHeaders, payload: { status: 'ready', version: 1 } });
    expect(moved.statusCode).toBe(200);
    // The session starts and is recorded for real: fields are filled only then.
    recording = await startRecordedSession(t, job.id, notaryHeaders, [
      { headers: signerHeaders, participantId: participantOf(signer) },
      { headers: otherHeaders, participantId: participantOf(otherSigner) },
    ]);
  }
  return { jobId: job.id, documentId, signerParticipant: participantOf(signer), otherParticipant: participantOf(otherSigner), recording };
}

async function placeField(jobId: string, documentId: string, body: Record<string, unknown>) {
  return t.app.inject({
    method: 'POST',
    url: `/api/jobs/${jobId}/documents/${documentId}/fields`,
    headers: notaryHeaders,
    payload: { page: 1, x: 0.1, y: 0.1, width: 0.3, height: 0.06, ...body },
  });
}

describe('placing fields', () => {
  it('lets the notary place, move and delete a field, and refuses a stale version', async () => {
    const { jobId, documentId, signerParticipant } = await createJob();
    const placed = await placeField(jobId, documentId, { type: 'signature', participantId: signerParticipant });
    expect(placed.statusCode).toBe(201);
    const field = placed.json();
    expect(field).toMatchObject({ type: 'signature', participantId: signerParticipant, version: 1, filledAt: null });
    const moved = await t.app.inject({
      method: 'PATCH',
      url: `/api/jobs/${jobId}/documents/${documentId}/fields/${field.id}`,
      headers: notaryHeaders,
      payload: { x: 0.5, version: 1 },
    });
    expect(moved.statusCode).toBe(200);
    expect(moved.json()).toMatchObject({ x: 0.5, version: 2 });
    const stale = await t.app.inject({
      method: 'PATCH',
      url: `/api/jobs/${jobId}/documents/${documentId}/fields/${field.id}`,
      headers: notaryHeaders,
      payload: { x: 0.2, version: 1 },
    });
    expect(stale.statusCode).toBe(412);
    expect(stale.json()).toMatchObject({ error: 'stale_version', detail: { currentVersion: 2 } });
    const [row] = await t.db.select().from(documentFields).where(eq(documentFields.id, field.id));
    expect(row?.x).toBe(0.5);
    const removed = await t.app.inject({ method: 'DELETE', url: `/api/jobs/${jobId}/documents/${documentId}/fields/${field.id}`, headers: notaryHeaders });
    expect(removed.statusCode).toBe(200);
    const list = await t.app.inject({ method: 'GET', url: `/api/jobs/${jobId}/documents/${documentId}/fields`, headers: signerHeaders });
    expect(list.json().items).toEqual([]);
  });

  it('refuses fields outside the page, past the last page, without a signer, or notary fields given to a signer', async () => {
    const { jobId, documentId, signerParticipant } = await createJob();
    const outside = await placeField(jobId, documentId, { type: 'signature', participantId: signerParticipant, x: 0.9, width: 0.3 });
    expect(outside.statusCode).toBe(400);
    expect(outside.json().message).toBe('The field must stay inside the page.');
    const pastEnd = await placeField(jobId, documentId, { type: 'signature', participantId: signerParticipant, page: 3 });
    expect(pastEnd.json()).toMatchObject({ message: 'This document has 2 page(s).' });
    const unassigned = await placeField(jobId, documentId, { type: 'initials' });
    expect(unassigned.json()).toMatchObject({ message: 'Assign this field to a signer.' });
    const notaryToSigner = await placeField(jobId, documentId, { type: 'notary_seal', participantId: signerParticipant });
    expect(notaryToSigner.statusCode).toBe(400);
  });

  it('refuses a signer placing fields', async () => {
    const { jobId, documentId, signerParticipant } = await createJob();
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/jobs/${jobId}/documents/${documentId}/fields`,
      headers: signerHeaders,
      payload: { type: 'signature', participantId: signerParticipant, page: 1, x: 0.1, y: 0.1, width: 0.2, height: 0.05 },
    });
    expect(res.statusCode).toBe(403);
  });
});

describe('filling fields', () => {
  it('lets a signer fill only their own fields, and only during the session', async () => {
    const { jobId, documentId, signerParticipant, otherParticipant } = await createJob();
    await saveSignature(signer);
    const mine = (await placeField(jobId, documentId, { type: 'signature', participantId: signerParticipant })).json();
    const theirs = (await placeField(jobId, documentId, { type: 'name', participantId: otherParticipant })).json();
    const seal = (await placeField(jobId, documentId, { type: 'notary_seal', width: 0.2, height: 0.15 })).json();
    const fillUrl = (id: string) => `/api/jobs/${jobId}/documents/${documentId}/fields/${id}/fill`;

    const foreign = await t.app.inject({ method: 'POST', url: fillUrl(theirs.id), headers: signerHeaders, payload: { version: 1 } });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json().message).toBe('You can only fill your own fields.');
    const notarys = await t.app.inject({ method: 'POST', url: fillUrl(seal.id), headers: signerHeaders, payload: { version: 1 } });
    expect(notarys.statusCode).toBe(403);
    expect(notarys.json().message).toBe('Only the notary fills the notary’s fields.');

    const signed = await t.app.inject({ method: 'POST', url: fillUrl(mine.id), headers: signerHeaders, payload: { version: 1 } });
    expect(signed.statusCode).toBe(200);
    expect(signed.json()).toMatchObject({ filledAt: expect.any(String), imageUrl: expect.stringContaining(`/fields/${mine.id}/image`) });
    const image = await t.app.inject({ method: 'GET', url: signed.json().imageUrl, headers: otherHeaders });
    expect(image.statusCode).toBe(200);
    expect(image.rawPayload.equals(tinyPng)).toBe(true);
    const again = await t.app.inject({ method: 'POST', url: fillUrl(mine.id), headers: signerHeaders, payload: { version: 2 } });
    expect(again.statusCode).toBe(409);

    const named = await t.app.inject({ method: 'POST', url: fillUrl(theirs.id), headers: otherHeaders, payload: { version: 1 } });
    expect(named.json()).toMatchObject({ value: otherSigner.name });
    const sealed = await t.app.inject({ method: 'POST', url: fillUrl(seal.id), headers: notaryHeaders, payload: { version: 1 } });
    expect(sealed.json()).toMatchObject({ value: 'applied' });
  });

  it('asks for a saved signature first and refuses filling outside the session', async () => {
    const draft = await createJob('draft');
    const early = (await placeField(draft.jobId, draft.documentId, { type: 'date_signed', participantId: draft.signerParticipant })).json();
    const tooEarly = await t.app.inject({
      method: 'POST',
      url: `/api/jobs/${draft.jobId}/documents/${draft.documentId}/fields/${early.id}/fill`,
      headers: signerHeaders,
      payload: { version: 1 },
    });
    expect(tooEarly.statusCode).toBe(409);
    expect(tooEarly.json().error).toBe('session_not_live');

    const live = await createJob();
    const initials = (await placeField(live.jobId, live.documentId, { type: 'initials', participantId: live.otherParticipant })).json();
    const missing = await t.app.inject({
      method: 'POST',
      url: `/api/jobs/${live.jobId}/documents/${live.documentId}/fields/${initials.id}/fill`,
      headers: otherHeaders,
      payload: { version: 1 },
    });
    expect(missing.statusCode).toBe(409);
    expect(missing.json()).toMatchObject({ error: 'signature_missing', message: 'Save your initials first.', detail: { needs: 'initials' } });
  });

  it('fills only while the job’s session is started and recorded: a job moved in session by hand, or a stopped recording, is refused', async () => {
    const { jobId, documentId, signerParticipant } = await createJob('draft');
    for (const [status, version] of [
      ['ready', 1],
      ['in_session', 2],
    ] as const) {
      expect((await t.app.inject({ method: 'PATCH', url: `/api/jobs/${jobId}`, headers: notaryHeaders, payload: { status, version } })).statusCode).toBe(200);
    }
    const field = (await placeField(jobId, documentId, { type: 'text', participantId: signerParticipant })).json();
    const fill = () =>
      t.app.inject({
        method: 'POST',
        url: `/api/jobs/${jobId}/documents/${documentId}/fields/${field.id}/fill`,
        headers: signerHeaders,
        payload: { value: 'Parcel 17', version: 1 },
      });
    const unsessioned = await fill();
    expect(unsessioned.statusCode).toBe(409);
    expect(unsessioned.json()).toEqual({
      error: 'session_not_live',
      message: 'Fields are filled during the live session: the notary starts the session and its recording first.',
    });

    const { sessionId, recordingId } = await startRecordedSession(t, jobId, notaryHeaders, [{ headers: signerHeaders, participantId: signerParticipant }]);
    const stopped = await t.app.inject({ method: 'POST', url: '/api/video/recording/stop', headers: notaryHeaders, payload: { sessionId, recordingId } });
    expect(stopped.statusCode).toBe(200);
    const unrecorded = await fill();
    expect(unrecorded.statusCode).toBe(409);
    expect(unrecorded.json()).toEqual({
      error: 'not_recording',
      message: 'Fields are filled only while the session is recorded: the notary starts the recording first.',
    });
    const [row] = await t.db.select().from(documentFields).where(eq(documentFields.id, field.id));
    expect(row).toMatchObject({ filledAt: null, value: null, version: 1 });

    expect((await t.app.inject({ method: 'POST', url: '/api/video/recording/start', headers: notaryHeaders, payload: { sessionId } })).statusCode).toBe(201);
    const filled = await fill();
    expect(filled.statusCode, filled.body).toBe(200);
    expect(filled.json()).toMatchObject({ value: 'Parcel 17', version: 2 });

    // The session ends: the job goes back to ready and nothing more is filled.
    expect((await t.app.inject({ method: 'POST', url: `/api/video/session/${sessionId}/finalize`, headers: notaryHeaders })).statusCode).toBe(200);
    const other = (await placeField(jobId, documentId, { type: 'checkbox', participantId: signerParticipant })).json();
    const after = await t.app.inject({
      method: 'POST',
      url: `/api/jobs/${jobId}/documents/${documentId}/fields/${other.id}/fill`,
      headers: signerHeaders,
      payload: { version: 1 },
    });
    expect(after.statusCode).toBe(409);
    expect(after.json().error).toBe('session_not_live');
  });

  it('completes a document only when every required field is filled, and then freezes its fields', async () => {
    const { jobId, documentId, signerParticipant } = await createJob();
    const date = (await placeField(jobId, documentId, { type: 'date_signed', participantId: signerParticipant })).json();
    const completeUrl = `/api/jobs/${jobId}/documents/${documentId}/complete`;
    const early = await t.app.inject({ method: 'POST', url: completeUrl, headers: notaryHeaders });
    expect(early.statusCode).toBe(409);
    expect(early.json().message).toBe('1 required field(s) are not filled yet.');
    await t.app.inject({
      method: 'POST',
      url: `/api/jobs/${jobId}/documents/${documentId}/fields/${date.id}/fill`,
      headers: signerHeaders,
      payload: { version: 1 },
    });
    const done = await t.app.inject({ method: 'POST', url: completeUrl, headers: notaryHeaders });
    expect(done.statusCode).toBe(200);
    const late = await placeField(jobId, documentId, { type: 'text', participantId: signerParticipant });
    expect(late.statusCode).toBe(409);
    expect(late.json().message).toBe('Fields cannot change after the document is complete.');
  });
});

describe('fields people use', () => {
  it('places a field on every page of the document, and it is filled once', async () => {
    const { jobId, documentId, signerParticipant } = await createJob();
    const placed = await placeField(jobId, documentId, { type: 'name', participantId: signerParticipant, isOnEveryPage: true });
    expect(placed.statusCode).toBe(201);
    expect(placed.json()).toMatchObject({ type: 'name', page: 1, isOnEveryPage: true });
    const single = (await placeField(jobId, documentId, { type: 'initials', participantId: signerParticipant })).json();
    expect(single.isOnEveryPage).toBe(false);
    const repeated = await t.app.inject({
      method: 'PATCH',
      url: `/api/jobs/${jobId}/documents/${documentId}/fields/${single.id}`,
      headers: notaryHeaders,
      payload: { isOnEveryPage: true, version: 1 },
    });
    expect(repeated.json()).toMatchObject({ isOnEveryPage: true, version: 2 });
    const filled = await t.app.inject({
      method: 'POST',
      url: `/api/jobs/${jobId}/documents/${documentId}/fields/${placed.json().id}/fill`,
      headers: signerHeaders,
      payload: { version: 1 },
    });
    expect(filled.json()).toMatchObject({ value: signer.name, isOnEveryPage: true, filledAt: expect.any(String) });
  });

  it('lets a signer choose the date of a date field, and refuses what is not a date', async () => {
    const { jobId, documentId, signerParticipant } = await createJob();
    const field = (await placeField(jobId, documentId, { type: 'date', participantId: signerParticipant })).json();
    const fillUrl = `/api/jobs/${jobId}/documents/${documentId}/fields/${field.id}/fill`;
    for (const value of [undefined, '2026-02-30', 'tomorrow']) {
      const refused = await t.app.inject({ method: 'POST', url: fillUrl, headers: signerHeaders, payload: { value, version: 1 } });
      expect(refused.statusCode, String(value)).toBe(400);
      expect(refused.json().message).toBe('Choose a date.');
    }
    const filled = await t.app.inject({ method: 'POST', url: fillUrl, headers: signerHeaders, payload: { value: '2026-03-14', version: 1 } });
    expect(filled.json()).toMatchObject({ value: '2026-03-14', filledAt: expect.any(String) });
  });

  it('dates a date-signed field with the day where the signer is, not where the server is', async () => {
    const { jobId, documentId, signerParticipant } = await createJob();
    // UTC+14 and UTC-11 are always on different calendar days.
    const zones = ['Pacific/Kiritimati', 'Pacific/Pago_Pago'];
    for (const timeZone of zones) {
      const field = (await placeField(jobId, documentId, { type: 'date_signed', participantId: signerParticipant })).json();
      const before = getCalendarDay(new Date(), timeZone);
      const filled = await t.app.inject({
        method: 'POST',
        url: `/api/jobs/${jobId}/documents/${documentId}/fields/${field.id}/fill`,
        headers: signerHeaders,
        payload: { version: 1, timeZone },
      });
      expect(filled.statusCode, filled.body).toBe(200);
      expect([before, getCalendarDay(new Date(), timeZone)]).toContain(filled.json().value);
    }
    const refused = await t.app.inject({
      method: 'POST',
      url: `/api/jobs/${jobId}/documents/${documentId}/fields/${(await placeField(jobId, documentId, { type: 'date_signed', participantId: signerParticipant })).json().id}/fill`,
      headers: signerHeaders,
      payload: { version: 1, timeZone: 'Europe/Paris; drop table' },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ error: 'validation_failed', message: expect.stringContaining('Send a time zone such as America/Chicago.') });
  });

  it('records the document, page, field type and person of every field event, so the trail can say it in words', async () => {
    const { jobId, documentId, signerParticipant } = await createJob();
    const signature = (await placeField(jobId, documentId, { type: 'signature', participantId: signerParticipant, page: 2 })).json();
    const initials = (await placeField(jobId, documentId, { type: 'initials', participantId: signerParticipant, isOnEveryPage: true })).json();
    await t.app.inject({ method: 'DELETE', url: `/api/jobs/${jobId}/documents/${documentId}/fields/${initials.id}`, headers: notaryHeaders });
    await saveSignature(signer);
    const filled = await t.app.inject({
      method: 'POST',
      url: `/api/jobs/${jobId}/documents/${documentId}/fields/${signature.id}/fill`,
      headers: signerHeaders,
      payload: { version: 1 },
    });
    expect(filled.statusCode, filled.body).toBe(200);
    const trail = (await t.app.inject({ method: 'GET', url: `/api/jobs/${jobId}/audit`, headers: signerHeaders })).json() as { events: AuditEvent[] };
    const fieldEvents = trail.events.filter((event) => event.action.startsWith('field.'));
    expect(fieldEvents.map((event) => [event.action, event.data])).toEqual([
      [
        'field.placed',
        expect.objectContaining({
          documentId,
          documentName: 'affidavit.pdf',
          fieldId: signature.id,
          type: 'signature',
          page: 2,
          isOnEveryPage: false,
          participantName: 'Sam Signer',
        }),
      ],
      [
        'field.placed',
        expect.objectContaining({ documentName: 'affidavit.pdf', type: 'initials', page: 1, isOnEveryPage: true, participantName: 'Sam Signer' }),
      ],
      [
        'field.removed',
        expect.objectContaining({ documentName: 'affidavit.pdf', fieldId: initials.id, type: 'initials', isOnEveryPage: true, participantName: 'Sam Signer' }),
      ],
      ['field.filled', expect.objectContaining({ documentName: 'affidavit.pdf', fieldId: signature.id, type: 'signature', page: 2 })],
    ]);
    expect(fieldEvents.map((event) => describeAuditEvent(event))).toEqual([
      'Nora Notary placed a signature field for Sam Signer on page 2 of affidavit.pdf.',
      'Nora Notary placed an initials field for Sam Signer on every page of affidavit.pdf.',
      'Nora Notary removed an initials field for Sam Signer from every page of affidavit.pdf.',
      'Sam Signer signed page 2 of affidavit.pdf.',
    ]);
  });

  it('shows everyone on the job the seal and certificate wording the notary’s fields will print, and nobody else', async () => {
    const { jobId } = await createJob();
    const assets = await t.app.inject({ method: 'GET', url: `/api/jobs/${jobId}/signing-assets`, headers: signerHeaders });
    expect(assets.statusCode).toBe(200);
    expect(assets.json().notaryStamp).toMatchObject({
      notaryName: 'Nora Notary',
      commissionState: 'TX',
      stateName: 'Texas',
      county: 'Travis',
      commissionNumber: 'TX-1',
      commissionExpiresOn: '2031-01-01',
      certificateText: expect.stringContaining('Nora Notary, Notary Public, State of Texas. Commission No. TX-1, expires January 1, 2031.'),
    });
    const stranger = await t.createUser({ roles: ['signer'] });
    const refused = await t.app.inject({ method: 'GET', url: `/api/jobs/${jobId}/signing-assets`, headers: await t.signInAs(stranger) });
    expect(refused.statusCode).toBe(404);
  });
});

describe('the live channel', () => {
  it('tells every participant, on another app instance too, when fields change, and relays the notary’s page', async () => {
    const { jobId, documentId, signerParticipant } = await createJob();
    const second = await createTestApp({}, { realtime: process.env.TEST_REDIS_URL ? undefined : t.realtime, databaseOf: t });
    try {
      const signerSocket = await second.app.injectWS(`/api/jobs/${jobId}/live`, { headers: signerHeaders });
      const received: string[] = [];
      signerSocket.on('message', (data: Buffer) => received.push(data.toString()));
      await new Promise((resolve) => setTimeout(resolve, 150));
      await placeField(jobId, documentId, { type: 'signature', participantId: signerParticipant });
      await expect.poll(() => received.map((raw) => JSON.parse(raw).type), { timeout: 1000 }).toContain('fields.changed');

      const notarySocket = await t.app.injectWS(`/api/jobs/${jobId}/live`, { headers: notaryHeaders });
      await new Promise((resolve) => setTimeout(resolve, 100));
      notarySocket.send(JSON.stringify({ type: 'view', documentId, page: 2 }));
      await expect
        .poll(() => received.map((raw) => JSON.parse(raw)).find((message) => message.type === 'view'), { timeout: 1000 })
        .toMatchObject({ documentId, page: 2, by: notary.name });

      signerSocket.send(JSON.stringify({ type: 'view', documentId, page: 1 }));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(received.map((raw) => JSON.parse(raw)).filter((message) => message.type === 'view')).toHaveLength(1);
      signerSocket.terminate();
      notarySocket.terminate();
    } finally {
      await second.close();
    }
  });

  it('tells everyone in the workspace when the session starts and when a document is completed', async () => {
    const { jobId, documentId } = await createJob('draft');
    const socket = await t.app.injectWS(`/api/jobs/${jobId}/live`, { headers: signerHeaders });
    const received: Array<{ type: string; documentId?: string }> = [];
    socket.on('message', (data: Buffer) => received.push(JSON.parse(data.toString())));
    await new Promise((resolve) => setTimeout(resolve, 150));
    let version = 1;
    for (const status of ['ready', 'in_session']) {
      const moved = await t.app.inject({ method: 'PATCH', url: `/api/jobs/${jobId}`, headers: notaryHeaders, payload: { status, version } });
      version = moved.json().version;
    }
    await expect.poll(() => received.filter((message) => message.type === 'job.changed').length, { timeout: 1000 }).toBe(2);
    const completed = await t.app.inject({ method: 'POST', url: `/api/jobs/${jobId}/documents/${documentId}/complete`, headers: notaryHeaders });
    expect(completed.statusCode).toBe(200);
    await expect
      .poll(() => received.find((message) => message.type === 'document.changed'), { timeout: 1000 })
      .toEqual({ type: 'document.changed', documentId });
    socket.terminate();
  });

  it('closes the channel for someone who is not on the job', async () => {
    const { jobId } = await createJob();
    const stranger = await t.createUser({ roles: ['signer'] });
    const socket = await t.app.injectWS(`/api/jobs/${jobId}/live`, { headers: await t.signInAs(stranger) });
    const code = await new Promise<number>((resolve) => socket.on('close', (closeCode: number) => resolve(closeCode)));
    expect(code).toBe(4404);
  });
});
