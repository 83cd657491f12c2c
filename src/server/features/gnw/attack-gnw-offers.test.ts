import { eq } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { instantOffers } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createGnwKit, type GnwKit } from '#test/gnw-matching-fixtures.ts';

/**
 * What outsiders try against Notarize Now's offers and loop (decision 051): reading or answering
 * offers without being a notary or witness, answering another notary's offer, reaching the
 * administrators' loop, starting someone else's search, and bodies that are not what they should be.
 */

let t: TestApp;
let kit: GnwKit;

beforeAll(async () => {
  t = await createTestApp();
  kit = createGnwKit(t);
});
afterAll(async () => {
  await t?.close();
});
afterEach(async () => {
  await kit.clearAll();
});

/** A searching request ringing at Abe; Bea is online too. */
async function ringing() {
  const [abe, bea] = await kit.onlineNotaries(['Abe Attack', 'Bea Attack']);
  const requester = await t.createUser({ roles: ['signer'] });
  const jobId = await kit.createInstantJob(requester);
  expect((await kit.startInstant(requester, jobId)).statusCode).toBe(200);
  const [offer] = await kit.openOffersOf(jobId);
  if (!offer) throw new Error('no offer rang');
  return { abe: abe!, bea: bea!, requester, jobId, offer };
}

const answer = (user: TestUser, offerId: string, verb: 'accept' | 'decline') => kit.jobs.call(user, 'POST', `/api/gnw/offers/${offerId}/${verb}`, {});

describe('offers', () => {
  it('are neither read nor answered by signers, title staff, administrators or the signed-out', async () => {
    const { requester, offer, jobId } = await ringing();
    const others = [requester, await t.createUser({ roles: ['title'] }), await t.createUser({ roles: ['admin'] })];
    for (const person of others) {
      const listed = await kit.jobs.call(person, 'GET', '/api/gnw/offers');
      expect(listed.statusCode, person.roles.join()).toBe(403);
      expect(listed.json()).toMatchObject({ error: 'forbidden', message: expect.any(String) });
      for (const verb of ['accept', 'decline'] as const) expect((await answer(person, offer.id, verb)).statusCode).toBe(403);
    }
    expect((await t.app.inject({ method: 'GET', url: '/api/gnw/offers' })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'POST', url: `/api/gnw/offers/${offer.id}/accept`, payload: {} })).statusCode).toBe(401);
    expect((await kit.openOffersOf(jobId)).map((row) => row.id)).toEqual([offer.id]);
  });

  it('of another notary cannot be accepted or declined: 409 offer_gone, telling nothing, and the offer still rings at its notary', async () => {
    const { bea, offer, jobId } = await ringing();
    for (const verb of ['accept', 'decline'] as const) {
      const res = await answer(bea, offer.id, verb);
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({ error: 'offer_gone', message: 'This offer is not open to you. Offers you can answer are on your dashboard.' });
    }
    const unknown = await answer(bea, randomUUID(), 'accept');
    expect(unknown.json()).toEqual({ error: 'offer_gone', message: 'This offer is not open to you. Offers you can answer are on your dashboard.' });
    const [row] = await t.db.select().from(instantOffers).where(eq(instantOffers.id, offer.id));
    expect(row?.status).toBe('open');
    expect((await kit.requestOf(jobId)).status).toBe('searching');
  });

  it('of a witness cannot be answered by a witness it does not ring at', async () => {
    const { abe, offer, jobId } = await ringing();
    await kit.jobs.call(abe, 'POST', `/api/gnw/offers/${offer.id}/accept`, {});
    const stranger = await t.createUser({ roles: ['witness'] });
    const res = await answer(stranger, offer.id, 'accept');
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toBe('offer_gone');
    expect((await kit.requestOf(jobId)).matchedNotaryId).toBe(abe.id);
  });

  it('refuse an id that is not one with a sentence', async () => {
    const { abe } = await ringing();
    for (const id of ['not-an-id', '%00', 'x'.repeat(5000)]) {
      const res = await kit.jobs.call(abe, 'POST', `/api/gnw/offers/${encodeURIComponent(id)}/accept`, {});
      expect([400, 404, 414], id.slice(0, 20)).toContain(res.statusCode);
      if (res.statusCode === 400) expect(res.json()).toMatchObject({ error: 'validation_failed' });
    }
  });
});

describe('the search', () => {
  it('is started only by the person who asked, never by a notary, a co-signer or an administrator', async () => {
    const requester = await t.createUser({ roles: ['signer'] });
    const cosigner = await t.createUser({ roles: ['signer'] });
    const jobId = await kit.createInstantJob(requester, { otherSigners: [{ name: cosigner.name, email: cosigner.email }] });
    const [notary] = await kit.onlineNotaries(['Nosy Notary']);
    for (const person of [cosigner, notary!, await t.createUser({ roles: ['admin'] })]) {
      const res = await kit.startInstant(person, jobId);
      expect(res.statusCode, person.roles.join()).toBe(404);
      expect(res.json()).toEqual({ error: 'not_found', message: 'No Notarize Now request for that job, or it is not yours.' });
    }
    expect((await kit.requestOf(jobId)).status).toBe('setup');
  });

  it('refuses bodies that are not a job id, NUL and huge ones included, with a sentence', async () => {
    const requester = await t.createUser({ roles: ['signer'] });
    for (const payload of [{}, { jobId: 'x\u0000y' }, { jobId: 'a'.repeat(100_000) }, { jobId: randomUUID(), extra: true }]) {
      const res = await kit.jobs.call(requester, 'POST', '/api/gnw/instant', payload);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: 'validation_failed' });
    }
  });
});

describe('the loop', () => {
  it('is reached by administrators only', async () => {
    const [notary] = await kit.onlineNotaries(['Loop Notary']);
    const people = [notary!, await t.createUser({ roles: ['signer'] }), await t.createUser({ roles: ['witness'] }), await t.createUser({ roles: ['title'] })];
    for (const person of people) {
      expect((await kit.jobs.call(person, 'GET', '/api/gnw/loop')).statusCode, person.roles.join()).toBe(403);
      const sent = await kit.jobs.call(person, 'POST', '/api/gnw/loop/test-offer', { notaryId: notary!.id });
      expect(sent.statusCode).toBe(403);
      expect(sent.json()).toMatchObject({ error: 'forbidden', message: expect.any(String) });
    }
    expect((await t.app.inject({ method: 'GET', url: '/api/gnw/loop' })).statusCode).toBe(401);
    expect(await kit.openOffersOf()).toEqual([]);
  });

  it('refuses a bad state, act or notary id with a sentence', async () => {
    const admin = await t.createUser({ roles: ['admin'] });
    for (const url of ['/api/gnw/loop?state=ZZ', '/api/gnw/loop?act=bribery', `/api/gnw/loop?state=${'T'.repeat(5000)}`]) {
      const res = await kit.jobs.call(admin, 'GET', url);
      expect(res.statusCode, url.slice(0, 40)).toBe(400);
      expect(res.json()).toMatchObject({ error: 'validation_failed' });
    }
    for (const payload of [{}, { notaryId: 'nobody' }, { notaryId: '\u0000' }, { notaryId: randomUUID(), more: 1 }]) {
      expect((await kit.jobs.call(admin, 'POST', '/api/gnw/loop/test-offer', payload)).statusCode).toBe(400);
    }
  });

  it('takes test-offer consent from notaries only, as a boolean', async () => {
    const witness = await t.createUser({ roles: ['witness'] });
    const signer = await t.createUser({ roles: ['signer'] });
    for (const person of [witness, signer]) {
      expect((await kit.put(person, '/api/availability/test-offers', { accepts: true })).statusCode).toBe(403);
    }
    const [notary] = await kit.onlineNotaries(['Consent Notary']);
    for (const payload of [{}, { accepts: 'yes' }, { accepts: true, also: 1 }]) {
      const res = await kit.put(notary!, '/api/availability/test-offers', payload);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: 'validation_failed' });
    }
  });
});
