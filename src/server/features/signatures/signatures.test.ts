import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signatureMessages } from '#shared/signatures.ts';
import { auditEvents, userSignatures } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';
import { makePng, toPngDataUrl } from '#test/png-fixtures.ts';
import { getCurrentSignature } from './signatures.service.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
});
afterAll(async () => t.close());

async function signedInSigner() {
  const user = await t.createUser({ roles: ['signer'] });
  return { user, headers: await t.signInAs(user) };
}

/** Saves with the consent to sign electronically that a first adoption needs (the consent's own tests send it or not themselves). */
const save = (kind: 'signature' | 'initials', headers: Record<string, string>, payload: unknown) =>
  t.app.inject({ method: 'POST', url: `/api/${kind}`, headers, payload: { hasAgreedToSignElectronically: true, ...(payload as Record<string, unknown>) } });
const saveAsIs = (kind: 'signature' | 'initials', headers: Record<string, string>, payload: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: `/api/${kind}`, headers, payload });
const getMine = (kind: 'signature' | 'initials', headers: Record<string, string>) => t.app.inject({ method: 'GET', url: `/api/${kind}/me`, headers });
const getImage = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

describe('consent to sign electronically', () => {
  it('refuses a first signature or initials without the consent, records the consent once, and asks no more after it', async () => {
    const { user, headers } = await signedInSigner();
    const image = toPngDataUrl(makePng(300, 100));
    for (const kind of ['signature', 'initials'] as const) {
      const refused = await saveAsIs(kind, headers, { imageDataUrl: image, method: 'draw' });
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toEqual({ error: 'consent_required', message: signatureMessages.consentRequired });
    }
    expect(await getCurrentSignature(t.db, user.id, 'signature')).toBeNull();

    expect((await saveAsIs('signature', headers, { imageDataUrl: image, method: 'draw', hasAgreedToSignElectronically: true })).statusCode).toBe(201);
    // Once agreed, initials and later signatures need no second consent.
    expect((await saveAsIs('initials', headers, { imageDataUrl: image, method: 'type' })).statusCode).toBe(201);
    expect((await saveAsIs('signature', headers, { imageDataUrl: image, method: 'upload' })).statusCode).toBe(201);
    const consents = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.actorId, user.id), eq(auditEvents.action, 'signature.esign_consented')));
    expect(consents).toHaveLength(1);
    expect(consents[0]?.data).toMatchObject({ wording: signatureMessages.consentWording });
  });
});

describe('saving a signature or initials', () => {
  it('stores a drawn signature and answers with its id, kind, method and image URL', async () => {
    const { headers } = await signedInSigner();
    const res = await save('signature', headers, { imageDataUrl: toPngDataUrl(makePng(300, 100)), method: 'draw' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      id: expect.any(String),
      kind: 'signature',
      method: 'draw',
      imageUrl: `/api/signatures/${body.id as string}/image`,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  it('serves back exactly the bytes that were saved, as image/png', async () => {
    const { headers } = await signedInSigner();
    const png = makePng(120, 40, { color: [0, 51, 91] });
    const saved = (await save('initials', headers, { imageDataUrl: toPngDataUrl(png), method: 'type' })).json();
    const image = await getImage(saved.imageUrl, headers);
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toBe('image/png');
    expect(image.rawPayload.equals(png)).toBe(true);
  });

  it('leaves no temporary file behind after a save', async () => {
    const { headers } = await signedInSigner();
    const directory = path.join(t.config.dataDir, 'tmp');
    const before = fs.existsSync(directory) ? new Set(fs.readdirSync(directory)) : new Set<string>();
    expect((await save('signature', headers, { imageDataUrl: toPngDataUrl(makePng(50, 20)), method: 'draw' })).statusCode).toBe(201);
    const leftovers = fs.readdirSync(directory).filter((name) => !before.has(name) && name.endsWith('.png'));
    expect(leftovers).toEqual([]);
  });

  it('replacing a signature keeps the old one, no longer current, and its image still opens', async () => {
    const { user, headers } = await signedInSigner();
    const firstPng = makePng(200, 80, { color: [10, 10, 10] });
    const first = (await save('signature', headers, { imageDataUrl: toPngDataUrl(firstPng), method: 'draw' })).json();
    const second = (await save('signature', headers, { imageDataUrl: toPngDataUrl(makePng(200, 80, { color: [20, 20, 20] })), method: 'upload' })).json();
    expect(second.id).not.toBe(first.id);

    const rows = await t.db
      .select()
      .from(userSignatures)
      .where(and(eq(userSignatures.userId, user.id), eq(userSignatures.kind, 'signature')));
    expect(rows.map((row) => ({ id: row.id, isCurrent: row.isCurrent })).sort((a, b) => Number(a.isCurrent) - Number(b.isCurrent))).toEqual([
      { id: first.id, isCurrent: false },
      { id: second.id, isCurrent: true },
    ]);
    expect((await getMine('signature', headers)).json()).toMatchObject({ id: second.id, method: 'upload' });
    expect((await getCurrentSignature(t.db, user.id, 'signature'))?.id).toBe(second.id);

    const oldImage = await getImage(first.imageUrl, headers);
    expect(oldImage.statusCode).toBe(200);
    expect(oldImage.rawPayload.equals(firstPng)).toBe(true);
  });

  it('keeps signature and initials apart: saving initials does not replace the signature', async () => {
    const { user, headers } = await signedInSigner();
    const signature = (await save('signature', headers, { imageDataUrl: toPngDataUrl(makePng(200, 80)), method: 'draw' })).json();
    const initials = (await save('initials', headers, { imageDataUrl: toPngDataUrl(makePng(80, 80)), method: 'draw' })).json();
    expect((await getMine('signature', headers)).json()).toMatchObject({ id: signature.id, kind: 'signature' });
    expect((await getMine('initials', headers)).json()).toMatchObject({ id: initials.id, kind: 'initials' });
    expect((await getCurrentSignature(t.db, user.id, 'initials'))?.id).toBe(initials.id);
  });

  it('records the save in the account audit trail', async () => {
    const { user, headers } = await signedInSigner();
    const saved = (await save('initials', headers, { imageDataUrl: toPngDataUrl(makePng(60, 60)), method: 'upload' })).json();
    const events = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.actorId, user.id), eq(auditEvents.action, 'initials.saved')));
    expect(events).toHaveLength(1);
    expect(events[0]?.data).toMatchObject({ signatureId: saved.id, method: 'upload' });
  });
});

describe('reading the current one', () => {
  it('answers 404 not_found before anything is saved, then 200 with the saved one', async () => {
    const { user, headers } = await signedInSigner();
    const none = await getMine('initials', headers);
    expect(none.statusCode).toBe(404);
    expect(none.json()).toEqual({ error: 'not_found', message: 'You have not saved your initials yet.' });
    expect(await getCurrentSignature(t.db, user.id, 'initials')).toBeNull();

    const saved = (await save('initials', headers, { imageDataUrl: toPngDataUrl(makePng(90, 60)), method: 'draw' })).json();
    const mine = await getMine('initials', headers);
    expect(mine.statusCode).toBe(200);
    expect(mine.json()).toEqual(saved);
  });
});

describe('who may see an image', () => {
  it("answers 404 to another signed-in person asking for someone else's image", async () => {
    const owner = await signedInSigner();
    const other = await signedInSigner();
    const saved = (await save('signature', owner.headers, { imageDataUrl: toPngDataUrl(makePng(100, 40)), method: 'draw' })).json();
    const res = await getImage(saved.imageUrl, other.headers);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ error: 'not_found', message: expect.any(String) });
  });

  it("lets an administrator see anyone's image", async () => {
    const owner = await signedInSigner();
    const adminHeaders = await t.signInAs(await t.createUser({ roles: ['admin'] }));
    const png = makePng(100, 40, { color: [1, 2, 3] });
    const saved = (await save('signature', owner.headers, { imageDataUrl: toPngDataUrl(png), method: 'draw' })).json();
    const res = await getImage(saved.imageUrl, adminHeaders);
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(png)).toBe(true);
  });

  it('answers 404 for an id that does not exist and 400 for one that is not a UUID', async () => {
    const { headers } = await signedInSigner();
    expect((await getImage(`/api/signatures/${randomUUID()}/image`, headers)).statusCode).toBe(404);
    const bad = await getImage('/api/signatures/not-a-uuid/image', headers);
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: 'validation_failed', message: 'Signature id must be a UUID.' });
  });

  it('answers 401 to an anonymous caller on every signature route', async () => {
    const dataUrl = toPngDataUrl(makePng(10, 10));
    const responses = await Promise.all([
      save('signature', {}, { imageDataUrl: dataUrl, method: 'draw' }),
      save('initials', {}, { imageDataUrl: dataUrl, method: 'draw' }),
      getMine('signature', {}),
      getMine('initials', {}),
      getImage(`/api/signatures/${randomUUID()}/image`),
    ]);
    for (const res of responses) {
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ error: 'unauthorized', message: expect.any(String) });
    }
  });
});

describe('bad input', () => {
  const pngHeaderWith = (width: number, height: number) => {
    const png = makePng(1, 1);
    png.writeUInt32BE(width, 16);
    png.writeUInt32BE(height, 20);
    return png;
  };
  const gif = Buffer.concat([Buffer.from('GIF89a', 'latin1'), Buffer.alloc(40)]);
  const cases: Array<{ what: string; payload: Record<string, unknown>; message: string }> = [
    { what: 'a missing image', payload: { method: 'draw' }, message: signatureMessages.notDataUrl },
    { what: 'an image that is not a string', payload: { imageDataUrl: 42, method: 'draw' }, message: signatureMessages.notDataUrl },
    {
      what: 'a plain URL instead of a data URL',
      payload: { imageDataUrl: 'https://example.test/sig.png', method: 'draw' },
      message: signatureMessages.notDataUrl,
    },
    {
      what: 'a JPEG data URL',
      payload: { imageDataUrl: `data:image/jpeg;base64,${makePng(5, 5).toString('base64')}`, method: 'upload' },
      message: signatureMessages.notDataUrl,
    },
    { what: 'a data URL that is not base64', payload: { imageDataUrl: 'data:image/png,hello', method: 'draw' }, message: signatureMessages.notDataUrl },
    { what: 'broken base64', payload: { imageDataUrl: 'data:image/png;base64,@@@@not*base64', method: 'draw' }, message: signatureMessages.notBase64 },
    { what: 'an empty image', payload: { imageDataUrl: 'data:image/png;base64,', method: 'draw' }, message: signatureMessages.notBase64 },
    { what: 'a GIF labelled as PNG', payload: { imageDataUrl: toPngDataUrl(gif), method: 'upload' }, message: signatureMessages.notPng },
    {
      what: 'a PNG cut short before its header',
      payload: { imageDataUrl: toPngDataUrl(makePng(5, 5).subarray(0, 16)), method: 'draw' },
      message: signatureMessages.notPng,
    },
    { what: 'a PNG with zero width', payload: { imageDataUrl: toPngDataUrl(pngHeaderWith(0, 10)), method: 'draw' }, message: signatureMessages.badDimensions },
    {
      what: 'a PNG wider than 2000 pixels',
      payload: { imageDataUrl: toPngDataUrl(pngHeaderWith(2001, 10)), method: 'draw' },
      message: signatureMessages.badDimensions,
    },
    {
      what: 'a PNG taller than 2000 pixels',
      payload: { imageDataUrl: toPngDataUrl(pngHeaderWith(10, 2001)), method: 'draw' },
      message: signatureMessages.badDimensions,
    },
    {
      what: 'a PNG over 512 KB',
      payload: { imageDataUrl: toPngDataUrl(makePng(500, 400, { isNoisy: true })), method: 'upload' },
      message: signatureMessages.tooLarge,
    },
    {
      what: 'an unknown method',
      payload: { imageDataUrl: toPngDataUrl(makePng(5, 5)), method: 'paint' },
      message: 'Choose how the image was made: draw, type or upload.',
    },
    { what: 'a missing method', payload: { imageDataUrl: toPngDataUrl(makePng(5, 5)) }, message: 'Choose how the image was made: draw, type or upload.' },
  ];

  it.each(cases)('refuses $what with 400 and a clear message, saving nothing', async ({ payload, message }) => {
    const { user, headers } = await signedInSigner();
    const res = await save('signature', headers, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message });
    expect(await getCurrentSignature(t.db, user.id, 'signature')).toBeNull();
  });

  it('accepts a PNG of exactly 2000 by 2000 pixels', async () => {
    const { headers } = await signedInSigner();
    const res = await save('initials', headers, { imageDataUrl: toPngDataUrl(makePng(2000, 2000)), method: 'upload' });
    expect(res.statusCode).toBe(201);
  });

  it('refuses a body over the server limit with 413', async () => {
    const { headers } = await signedInSigner();
    const res = await save('signature', headers, { imageDataUrl: `data:image/png;base64,${'A'.repeat(t.config.limits.bodyBytes)}`, method: 'draw' });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ error: 'payload_too_large', message: expect.any(String) });
  });
});
