import fs from 'node:fs';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, userSignatures } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, type JobKit } from '#test/job-fixtures.ts';
import { makePng } from '#test/png-fixtures.ts';

/** E-sign consent on the first adoption attacked: skipped, replayed, raced, given for someone else. */

let t: TestApp;
let kit: JobKit;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createJobKit(t);
});
afterAll(async () => t?.close());

let shade = 0;
/** A PNG no other test saved (a different colour each time), so its blob is new. */
const freshImage = () => {
  shade += 1;
  return `data:image/png;base64,${makePng(60, 20, { color: [shade % 256, (shade * 7) % 256, 91] }).toString('base64')}`;
};

const save = (person: TestUser, body: Record<string, unknown>, kind: 'signature' | 'initials' = 'signature') =>
  kit.call(person, 'POST', kind === 'signature' ? '/api/signature' : '/api/initials', body);

const consentsOf = async (person: TestUser) =>
  t.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.actorId, person.id), eq(auditEvents.action, 'signature.esign_consented')));
const rowsOf = async (person: TestUser) => t.db.select().from(userSignatures).where(eq(userSignatures.userId, person.id));

function countFiles(directory: string): number {
  if (!fs.existsSync(directory)) return 0;
  return fs
    .readdirSync(directory, { withFileTypes: true })
    .reduce((sum, entry) => sum + (entry.isDirectory() ? countFiles(path.join(directory, entry.name)) : 1), 0);
}

describe('the consent on the first adoption', () => {
  it('refuses a first adoption without the consent, whatever stands in for it, and keeps nothing of it', async () => {
    const person = await t.createUser();
    for (const consent of [undefined, false, 'true', 1, null, {}, [true]]) {
      const res = await save(person, {
        imageDataUrl: freshImage(),
        method: 'draw',
        ...(consent === undefined ? {} : { hasAgreedToSignElectronically: consent }),
      });
      expect(res.statusCode, `${JSON.stringify(consent)}: ${res.body}`).toBe(400);
      expect(typeof res.json().message).toBe('string');
    }
    expect(await rowsOf(person)).toEqual([]);
    expect(await consentsOf(person)).toEqual([]);
  });

  it('stores no image file for a refused first adoption', async () => {
    const person = await t.createUser();
    const before = countFiles(t.blobRoot);
    for (let index = 0; index < 3; index += 1) {
      const res = await save(person, { imageDataUrl: freshImage(), method: 'draw' });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('consent_required');
    }
    // Each refused request used to leave its PNG in storage with no row pointing at it.
    expect(countFiles(t.blobRoot)).toBe(before);
  });

  it('cannot give the consent for someone else: a userId in the body is not read', async () => {
    const person = await t.createUser();
    const victim = await t.createUser();
    const res = await save(person, { imageDataUrl: freshImage(), method: 'draw', hasAgreedToSignElectronically: true, userId: victim.id, actorId: victim.id });
    expect([201, 400], res.body).toContain(res.statusCode);
    expect(await consentsOf(victim)).toEqual([]);
    expect(await rowsOf(victim)).toEqual([]);
    const victimFirst = await save(victim, { imageDataUrl: freshImage(), method: 'draw' });
    expect(victimFirst.statusCode).toBe(400);
  });

  it('records the consent once when two first adoptions race, and leaves exactly one current signature and one current initials', async () => {
    const person = await t.createUser();
    const body = () => ({ imageDataUrl: freshImage(), method: 'draw', hasAgreedToSignElectronically: true });
    const results = await Promise.all([save(person, body()), save(person, body()), save(person, body(), 'initials'), save(person, body(), 'initials')]);
    expect(results.map((res) => res.statusCode)).toEqual([201, 201, 201, 201]);
    expect(await consentsOf(person)).toHaveLength(1);
    const current = (await rowsOf(person)).filter((row) => row.isCurrent);
    expect(current.map((row) => row.kind).sort()).toEqual(['initials', 'signature']);
  });

  it('lets a race between a consented and an unconsented first adoption end with a consent recorded for whatever was adopted', async () => {
    const person = await t.createUser();
    const results = await Promise.all([
      save(person, { imageDataUrl: freshImage(), method: 'draw' }),
      save(person, { imageDataUrl: freshImage(), method: 'draw', hasAgreedToSignElectronically: true }),
    ]);
    const adopted = (await rowsOf(person)).length;
    expect(adopted).toBe(results.filter((res) => res.statusCode === 201).length);
    expect(adopted).toBeGreaterThan(0);
    expect(await consentsOf(person)).toHaveLength(1);
  });
});

describe('images', () => {
  it('answers 400 or 413 with a sentence, never 500, to oversized, fake and odd images', async () => {
    const person = await t.createUser();
    const head = makePng(60, 20).toString('base64');
    const bodies = [
      `data:image/png;base64,${'A'.repeat(700 * 1024)}`,
      `data:image/png;base64,${head}${'A'.repeat(2 * 1024 * 1024)}`,
      `data:image/svg+xml;base64,${Buffer.from('<svg/>').toString('base64')}`,
      `data:image/png;base64,${Buffer.from('GIF89a not a png at all, just long enough').toString('base64')}`,
      `data:image/png;base64,${head.slice(0, 40)}\u0000${head.slice(40)}`,
      'data:image/png;base64,',
      `data:image/png;base64,${makePng(2001, 1).toString('base64')}`,
    ];
    for (const imageDataUrl of bodies) {
      const res = await save(person, { imageDataUrl, method: 'draw', hasAgreedToSignElectronically: true });
      expect([400, 413], `${imageDataUrl.slice(0, 40)}: ${res.body.slice(0, 200)}`).toContain(res.statusCode);
      expect(typeof res.json().message).toBe('string');
    }
    for (const method of ['paint', '', null, 7]) {
      const res = await save(person, { imageDataUrl: freshImage(), method, hasAgreedToSignElectronically: true });
      expect(res.statusCode).toBe(400);
    }
    expect(await rowsOf(person)).toEqual([]);
  });
});
