import { and, desc, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { describeAuditEvent } from '#shared/audit-sentences.ts';
import { auditEvents, instantOffers, notaryPresence } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';
import { createGnwKit, type GnwKit } from '#test/gnw-matching-fixtures.ts';
import { createNotary } from '#test/notary-fixtures.ts';

/**
 * What notaries, platform witnesses and administrators see of Notarize Now's matching (decision 051):
 * the offers ringing at them, the loop page with its order and reasons, test offers and the opt-in.
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

describe('the offers ringing at a notary', () => {
  it('show the act, the state and the counts, and nothing that names the person who asked', async () => {
    const [abe, bea] = await kit.onlineNotaries(['Abe Notary', 'Bea Notary']);
    const requester = await t.createUser({ roles: ['signer'], name: 'Priscilla Secretperson' });
    const jobId = await kit.createInstantJob(requester);
    await kit.startInstant(requester, jobId);
    const res = await kit.jobs.call(abe!, 'GET', '/api/gnw/offers');
    expect(res.statusCode).toBe(200);
    const [offer] = res.json().items;
    expect(res.json().items).toHaveLength(1);
    expect(offer).toEqual({
      id: expect.any(String),
      kind: 'notary',
      isTest: false,
      jobId,
      act: 'acknowledgment',
      actLabel: 'Acknowledgment',
      signerState: 'TX',
      stateName: 'Texas',
      documentCount: 1,
      signerCount: 1,
      witnessesRequested: 0,
      offeredAt: expect.any(String),
      expiresAt: expect.any(String),
    });
    expect(Date.parse(offer.expiresAt) - Date.parse(offer.offeredAt)).toBe(30_000);
    for (const secret of [requester.name, requester.email, requester.id, 'Affidavit']) expect(res.body).not.toContain(secret);
    // The other notary hears nothing until it is their turn.
    expect((await kit.jobs.call(bea!, 'GET', '/api/gnw/offers')).json()).toEqual({ items: [] });
  });

  it('leave the list when the offer rings out, even before the sweep marks it expired', async () => {
    const [abe] = await kit.onlineNotaries(['Abe Notary']);
    const requester = await t.createUser({ roles: ['signer'] });
    const jobId = await kit.createInstantJob(requester);
    await kit.startInstant(requester, jobId);
    await t.db
      .update(instantOffers)
      .set({ expiresAt: new Date(Date.now() - 1) })
      .where(eq(instantOffers.userId, abe!.id));
    expect((await kit.jobs.call(abe!, 'GET', '/api/gnw/offers')).json()).toEqual({ items: [] });
  });
});

describe('witnesses going online', () => {
  it('lets a person with the witness role go online and off like a notary, in the same presence table', async () => {
    const wes = await t.createUser({ roles: ['witness'] });
    const on = await kit.jobs.call(wes, 'POST', '/api/notary-availability/toggle', { is_available: true, session_id: 'browser-wes-1' });
    expect(on.statusCode, on.body).toBe(200);
    expect(on.json()).toMatchObject({ is_available: true, can_go_online: true, reason: null });
    const [row] = await t.db.select().from(notaryPresence).where(eq(notaryPresence.notaryId, wes.id));
    expect(row).toMatchObject({ isAvailable: true, sessionId: 'browser-wes-1' });
    const beat = await kit.jobs.call(wes, 'POST', '/api/notary-availability/heartbeat', { session_id: 'browser-wes-1' });
    expect(beat.json()).toMatchObject({ is_available: true });
    const off = await kit.jobs.call(wes, 'POST', '/api/notary-availability/toggle', { is_available: false });
    expect(off.json()).toMatchObject({ is_available: false });
  });
});

describe('the loop page', () => {
  it('lists every approved notary with the order of the next offer and why, or why they are left out', async () => {
    const [abe, bea, cy] = await kit.onlineNotaries(['Abe Loop', 'Bea Loop', 'Cy Loop']);
    await kit.put(cy!, '/api/availability/test-offers', { accepts: true });
    const expired = await createNotary(t, { name: 'Ed Lapsed', commissionExpiresOn: '2020-01-31' });
    const offline = await createNotary(t, { name: 'Olive Offline' });
    const never = await createNotary(t, { name: 'Nat Never' });
    await kit.goOnline(offline);
    await kit.jobs.call(offline, 'POST', '/api/notary-availability/toggle', { is_available: false });
    await createNotary(t, { name: 'Pending Pam', approvalStatus: 'pending' });
    // One job rings at Abe (first by name of those never offered one).
    const requester = await t.createUser({ roles: ['signer'] });
    const jobId = await kit.createInstantJob(requester);
    await kit.startInstant(requester, jobId);
    const admin = await t.createUser({ roles: ['admin'] });
    const res = await kit.jobs.call(admin, 'GET', '/api/gnw/loop?state=TX&act=jurat');
    expect(res.statusCode, res.body).toBe(200);
    const loop = res.json();
    const ours = new Set([abe!.id, bea!.id, cy!.id, expired.id, offline.id, never.id]);
    const rows = loop.candidates.filter((candidate: { notaryId: string }) => ours.has(candidate.notaryId));
    expect(rows.map((row: { name: string; order: number | null }) => [row.name, row.order])).toEqual([
      ['Bea Loop', 1],
      ['Cy Loop', 2],
      ['Abe Loop', null],
      ['Ed Lapsed', null],
      ['Nat Never', null],
      ['Olive Offline', null],
    ]);
    const byName = Object.fromEntries(rows.map((row: { name: string }) => [row.name, row]));
    expect(byName['Bea Loop']).toMatchObject({
      online: true,
      eligible: true,
      acceptsTestOffers: false,
      commissionState: 'VA',
      reason: 'Next in line for a jurat for a signer in Texas: never offered a job, longer than anyone else online (ties go by name).',
    });
    expect(byName['Cy Loop']).toMatchObject({ acceptsTestOffers: true, reason: expect.stringMatching(/^Number 2 for a jurat/) });
    expect(byName['Abe Loop']).toMatchObject({
      online: true,
      eligible: false,
      reason: expect.stringMatching(/^Left out for now: ringing with an offer for another job until \d{2}:\d{2}:\d{2} UTC; nothing else rings/),
      lastOfferedAt: expect.any(String),
    });
    expect(byName['Ed Lapsed']).toMatchObject({ online: false, reason: 'Left out: Ed Lapsed’s notary commission expired on 2020-01-31.' });
    expect(byName['Nat Never'].reason).toBe('Left out: offline, they have never gone online.');
    expect(byName['Olive Offline'].reason).toBe('Left out: offline, their availability switch is off.');
    expect(loop.candidates.map((candidate: { name: string }) => candidate.name)).not.toContain('Pending Pam');
    expect(loop).toMatchObject({ searching: 1, openOffers: 1 });
  });
});

describe('test offers', () => {
  it('ring at a notary who opted in and is online, and accepting or declining only records the answer', async () => {
    const [nora] = await kit.onlineNotaries(['Nora Tester']);
    const admin = await t.createUser({ roles: ['admin'], name: 'Ada Admin' });
    const optIn = await kit.put(nora!, '/api/availability/test-offers', { accepts: true });
    expect(optIn.statusCode, optIn.body).toBe(200);
    expect(optIn.json()).toEqual({ acceptsTestOffers: true, message: expect.stringContaining('test offers') });

    const sent = await kit.jobs.call(admin, 'POST', '/api/gnw/loop/test-offer', { notaryId: nora!.id });
    expect(sent.statusCode, sent.body).toBe(200);
    expect(sent.json()).toEqual({ message: 'A test offer rings at Nora Tester for 30 seconds.' });
    const twice = await kit.jobs.call(admin, 'POST', '/api/gnw/loop/test-offer', { notaryId: nora!.id });
    expect(twice.statusCode).toBe(409);
    expect(twice.json()).toEqual({
      error: 'conflict',
      message: 'An offer is ringing at Nora Tester already; send the test offer when it is answered or expires.',
    });

    const [offer] = (await kit.jobs.call(nora!, 'GET', '/api/gnw/offers')).json().items;
    expect(offer).toMatchObject({ isTest: true, jobId: null, act: 'test', actLabel: 'Test offer (no job)', documentCount: 0, signerCount: 0 });
    const accepted = await kit.jobs.call(nora!, 'POST', `/api/gnw/offers/${offer.id}/accept`, {});
    expect(accepted.statusCode).toBe(200);
    expect(accepted.json()).toEqual({ message: 'Test offer accepted. It held no job, so nothing else happens.', jobId: null, sessionPath: null });
    const [row] = await t.db.select().from(instantOffers).where(eq(instantOffers.id, offer.id));
    expect(row).toMatchObject({ status: 'accepted', isTest: true, requestId: null, createdBy: admin.id });

    await kit.jobs.call(admin, 'POST', '/api/gnw/loop/test-offer', { notaryId: nora!.id });
    const [second] = (await kit.jobs.call(nora!, 'GET', '/api/gnw/offers')).json().items;
    const declined = await kit.jobs.call(nora!, 'POST', `/api/gnw/offers/${second.id}/decline`, {});
    expect(declined.json()).toEqual({ message: 'Test offer declined. It held no job, so nothing else happens.', jobId: null, sessionPath: null });

    const events = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'gnw.test_offer_sent'), eq(auditEvents.actorId, admin.id)))
      .orderBy(desc(auditEvents.sequence));
    expect(events).toHaveLength(2);
    expect(describeAuditEvent({ action: 'gnw.test_offer_sent', actorName: 'Ada Admin', data: events[0]!.data as Record<string, unknown> })).toBe(
      'Ada Admin sent a test offer to Nora Tester from the loop test page.',
    );
  });

  it('are refused with a sentence for a notary who did not opt in, who is offline, or who is no notary', async () => {
    const admin = await t.createUser({ roles: ['admin'] });
    const [shy] = await kit.onlineNotaries(['Shy Notary']);
    const notOptedIn = await kit.jobs.call(admin, 'POST', '/api/gnw/loop/test-offer', { notaryId: shy!.id });
    expect(notOptedIn.statusCode).toBe(409);
    expect(notOptedIn.json()).toEqual({
      error: 'conflict',
      message: 'Shy Notary has not agreed to test offers. They can turn them on next to their availability switch.',
    });

    const away = await createNotary(t, { name: 'Away Notary' });
    await kit.put(away, '/api/availability/test-offers', { accepts: true });
    const offline = await kit.jobs.call(admin, 'POST', '/api/gnw/loop/test-offer', { notaryId: away.id });
    expect(offline.statusCode).toBe(409);
    expect(offline.json().message).toBe('Away Notary is not online as a notary who may take work; a test offer goes only to a notary who is.');

    const signer = await t.createUser({ roles: ['signer'] });
    const nobody = await kit.jobs.call(admin, 'POST', '/api/gnw/loop/test-offer', { notaryId: signer.id });
    expect(nobody.statusCode).toBe(404);
    expect(nobody.json()).toEqual({ error: 'not_found', message: 'No notary with that id.' });

    // Opting out again stops them.
    await kit.put(shy!, '/api/availability/test-offers', { accepts: true });
    const optOut = await kit.put(shy!, '/api/availability/test-offers', { accepts: false });
    expect(optOut.json()).toEqual({ acceptsTestOffers: false, message: 'Administrators can no longer send you test offers.' });
    expect((await kit.jobs.call(admin, 'POST', '/api/gnw/loop/test-offer', { notaryId: shy!.id })).statusCode).toBe(409);
  });
});
