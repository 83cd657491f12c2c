import { eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { offerSeconds } from '#shared/gnw.ts';
import { emailOutbox, instantOffers, jobs, notaryPresence, notaryProfiles, users } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';
import { createGnwKit, type GnwKit } from '#test/gnw-matching-fixtures.ts';
import { createNotary } from '#test/notary-fixtures.ts';
import { requestMatchingPass, runMatchingPass } from './gnw-matching.ts';

/**
 * The Notarize Now matcher (decision 051): one notary at a time, 30 s each, in order, never the same
 * notary twice, unmatched after the search time, and safe when two matchers run at once. The clock
 * is moved by passing `now`, never by sleeping.
 */

let t: TestApp;
let kit: GnwKit;

beforeAll(async () => {
  t = await createTestApp({ GNW_SEARCH_SECONDS: '120' });
  kit = createGnwKit(t);
});
afterAll(async () => {
  await t?.close();
});
// One app for the file: each test leaves nobody online and nothing searching or ringing behind.
afterEach(async () => {
  await kit.clearAll();
});

const later = (from: Date, seconds: number) => new Date(from.getTime() + seconds * 1000);

describe('starting the search', () => {
  it('offers the job to one notary only, the one never offered before and first by name, and says it rings', async () => {
    await kit.onlineNotaries(['Cleo Notary', 'Abe Notary', 'Bea Notary']);
    const requester = await t.createUser({ roles: ['signer'], name: 'Pat Person' });
    const jobId = await kit.createInstantJob(requester);
    const res = await kit.startInstant(requester, jobId);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      jobId,
      lane: 'instant',
      status: 'searching',
      step: 'notary',
      search: { place: 1, notariesOnline: 3, offersMade: 1, ringing: true },
      payment: { status: 'held', amountCents: 3900 },
      notaryName: null,
    });
    const search = res.json().search;
    expect(Date.parse(search.endsAt) - Date.parse(search.startedAt)).toBe(120_000);
    const open = await kit.openOffersOf(jobId);
    expect(open.map((offer) => offer.name)).toEqual(['Abe Notary']);
    expect(open[0]!.expiresAt.getTime() - open[0]!.offeredAt.getTime()).toBe(offerSeconds * 1000);
    expect(await kit.sentencesOf(jobId, ['gnw.search_started'])).toEqual([
      'Pat Person asked for a notary now: the job is offered to online notaries one at a time for up to 2 minutes.',
    ]);
  });

  it('refuses without a held payment, twice, for someone else’s request, and unsigned', async () => {
    const requester = await t.createUser({ roles: ['signer'] });
    const unpaid = await kit.createInstantJob(requester, { isHeld: false });
    const refused = await kit.startInstant(requester, unpaid);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual({ error: 'payment_required', message: expect.stringMatching(/^Authorise the payment first/) });
    expect((await kit.requestOf(unpaid)).status).toBe('setup');

    const other = await t.createUser({ roles: ['signer'] });
    const paid = await kit.createInstantJob(other);
    const stranger = await kit.startInstant(requester, paid);
    expect(stranger.statusCode).toBe(404);
    expect(stranger.json()).toMatchObject({ error: 'not_found', message: expect.any(String) });

    expect((await kit.startInstant(other, paid)).statusCode).toBe(200);
    const again = await kit.startInstant(other, paid);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ error: 'conflict', message: 'We are already looking for a notary for this job.' });

    expect((await t.app.inject({ method: 'POST', url: '/api/gnw/instant', payload: { jobId: paid } })).statusCode).toBe(401);
    const bad = await kit.jobs.call(other, 'POST', '/api/gnw/instant', { jobId: 'not-a-job' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: 'validation_failed' });
  });
});

describe('moving on', () => {
  it('moves to the next notary when an offer rings out after 30 s, offers nobody twice, and ends unmatched after the search time', async () => {
    await kit.onlineNotaries(['Abe Notary', 'Bea Notary']);
    const requester = await t.createUser({ roles: ['signer'] });
    const jobId = await kit.createInstantJob(requester);
    expect((await kit.startInstant(requester, jobId)).statusCode).toBe(200);
    // The clock of the ring is the offer's: the first pass reads the clock after the start committed.
    const started = (await kit.openOffersOf(jobId))[0]!.offeredAt;
    expect(started.getTime()).toBeGreaterThanOrEqual((await kit.requestOf(jobId)).searchStartedAt!.getTime());

    // 29 s: still ringing at the first notary.
    await kit.runAt(later(started, offerSeconds - 1));
    expect((await kit.openOffersOf(jobId)).map((offer) => offer.name)).toEqual(['Abe Notary']);
    // 30 s: expired, the second rings.
    await kit.runAt(later(started, offerSeconds));
    expect((await kit.offersOf(jobId)).map((offer) => [offer.name, offer.status])).toEqual([
      ['Abe Notary', 'expired'],
      ['Bea Notary', 'open'],
    ]);
    // 60 s: both were offered it; nobody is offered it again.
    await kit.runAt(later(started, 2 * offerSeconds));
    expect((await kit.offersOf(jobId)).map((offer) => [offer.name, offer.status])).toEqual([
      ['Abe Notary', 'expired'],
      ['Bea Notary', 'expired'],
    ]);
    expect((await kit.requestOf(jobId)).status).toBe('searching');
    // A notary who comes online later is offered it.
    const [late] = await kit.onlineNotaries(['Cy Notary']);
    await kit.runAt(later(started, 100));
    expect((await kit.openOffersOf(jobId)).map((offer) => offer.userId)).toEqual([late!.id]);
    // 120 s: the search time is over; the ringing offer is withdrawn.
    const pass = await kit.runAt(later(started, 120));
    expect(pass.unmatched).toBe(1);
    expect((await kit.requestOf(jobId)).status).toBe('unmatched');
    expect(await kit.openOffersOf(jobId)).toEqual([]);
    expect((await kit.offersOf(jobId)).at(-1)).toMatchObject({ name: 'Cy Notary', status: 'withdrawn' });
    expect(await kit.sentencesOf(jobId, ['gnw.search_unmatched'])).toEqual([
      'No notary accepted the job in time (3 offers made); the search stopped, and a time can be booked instead with the card hold kept.',
    ]);
  });

  it('rings the next notary at once when one declines', async () => {
    const [abe] = await kit.onlineNotaries(['Abe Notary', 'Bea Notary']);
    const requester = await t.createUser({ roles: ['signer'] });
    const jobId = await kit.createInstantJob(requester);
    await kit.startInstant(requester, jobId);
    const [offer] = await kit.openOffersOf(jobId);
    const res = await kit.jobs.call(abe!, 'POST', `/api/gnw/offers/${offer!.id}/decline`, {});
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ message: 'Offer declined. It goes to someone else.', jobId: null, sessionPath: null });
    expect((await kit.offersOf(jobId)).map((row) => [row.name, row.status])).toEqual([
      ['Abe Notary', 'declined'],
      ['Bea Notary', 'open'],
    ]);
  });

  it('gives the longest-waiting notary the next job, and each request its own notary, oldest request first', async () => {
    const [abe, bea, cy] = await kit.onlineNotaries(['Abe Notary', 'Bea Notary', 'Cy Notary']);
    const first = await t.createUser({ roles: ['signer'] });
    const firstJob = await kit.createInstantJob(first);
    await kit.startInstant(first, firstJob);
    // Abe was offered the first job; the second goes to Bea (never offered), not Abe.
    const second = await t.createUser({ roles: ['signer'] });
    const secondJob = await kit.createInstantJob(second);
    await kit.startInstant(second, secondJob);
    expect((await kit.openOffersOf(firstJob)).map((offer) => offer.userId)).toEqual([abe!.id]);
    expect((await kit.openOffersOf(secondJob)).map((offer) => offer.userId)).toEqual([bea!.id]);
    // Abe declines: his offer was the earlier, so the first job goes to Cy, who was never offered one.
    const [abeOffer] = await kit.openOffersOf(firstJob);
    await kit.jobs.call(abe!, 'POST', `/api/gnw/offers/${abeOffer!.id}/decline`, {});
    expect((await kit.openOffersOf(firstJob)).map((offer) => offer.userId)).toEqual([cy!.id]);
  });

  it('never offers a job to its requester, one of its people, a notary who cannot take work, or one who is offline', async () => {
    const requester = await t.createUser({ roles: ['signer'], name: 'Pat Person' });
    const cosigner = await createNotary(t, { name: 'Abe Cosigner' });
    const jobId = await kit.createInstantJob(requester, { otherSigners: [{ name: cosigner.name, email: cosigner.email }] });
    // The requester is a notary too (made one after starting the job), online.
    await t.db
      .update(users)
      .set({ roles: ['signer', 'notary'] })
      .where(eq(users.id, requester.id));
    await t.db.insert(notaryProfiles).values({
      userId: requester.id,
      commissionState: 'VA',
      commissionNumber: 'VA-self',
      commissionExpiresOn: '2031-06-30',
      county: 'Fairfax',
      approvalStatus: 'approved',
      approvedAt: new Date(),
    });
    const expired = await createNotary(t, { name: 'Ada Expired', commissionExpiresOn: '2020-01-31' });
    const offline = await createNotary(t, { name: 'Al Offline' });
    await kit.goOnline(cosigner);
    // The requester (whose sign-in predates the role) and a notary whose commission lapsed since: switched on and beating.
    for (const notaryId of [requester.id, expired.id]) {
      await t.db
        .insert(notaryPresence)
        .values({ notaryId, isAvailable: true, sessionId: `browser-${notaryId.slice(0, 8)}`, wentOnlineAt: new Date(), lastHeartbeatAt: new Date() });
    }
    await kit.startInstant(requester, jobId);
    expect(await kit.openOffersOf(jobId)).toEqual([]);
    const [eligible] = await kit.onlineNotaries(['Zed Notary']);
    await kit.runAt(new Date());
    expect((await kit.openOffersOf(jobId)).map((offer) => offer.userId)).toEqual([eligible!.id]);
    expect((await kit.offersOf(jobId)).map((offer) => offer.userId)).not.toContain(offline.id);
  });
});

describe('accepting', () => {
  it('makes the notary the job’s notary and the job ready in one step, tells them by mail, and sends them to the session', async () => {
    const [abe] = await kit.onlineNotaries(['Abe Notary']);
    const requester = await t.createUser({ roles: ['signer'], name: 'Pat Person' });
    const jobId = await kit.createInstantJob(requester);
    await kit.startInstant(requester, jobId);
    const [offer] = await kit.openOffersOf(jobId);
    const res = await kit.jobs.call(abe!, 'POST', `/api/gnw/offers/${offer!.id}/accept`, {});
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ message: expect.stringContaining('You are the notary for'), jobId, sessionPath: `/session/${jobId}` });
    const request = await kit.requestOf(jobId);
    expect(request).toMatchObject({ status: 'matched', matchedNotaryId: abe!.id });
    const [job] = await t.db.select().from(jobs).where(eq(jobs.id, jobId));
    expect(job).toMatchObject({ notaryId: abe!.id, status: 'ready' });
    const sentences = await kit.sentencesOf(jobId, ['gnw.notary_matched', 'job.status_changed']);
    expect(sentences[0]).toMatch(/^Abe Notary accepted the job as its notary \d+ seconds? after the search started; the job is ready for its session\.$/);
    expect(sentences[1]).toContain('Abe Notary');
    const mail = await t.db.select().from(emailOutbox).where(eq(emailOutbox.toAddress, abe!.email));
    expect(mail.map((row) => row.kind)).toContain('job_assigned');
    // The notary now sees the job; the person's job names them.
    expect((await kit.jobs.call(abe!, 'GET', `/api/jobs/${jobId}`)).statusCode).toBe(200);
    const again = await kit.jobs.call(abe!, 'POST', `/api/gnw/offers/${offer!.id}/accept`, {});
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ error: 'offer_gone', message: 'You already accepted this offer.' });
  });

  it('answers 409 offer_gone to an accept after the 30 s, and the job goes to the next notary', async () => {
    const [abe, bea] = await kit.onlineNotaries(['Abe Notary', 'Bea Notary']);
    const requester = await t.createUser({ roles: ['signer'] });
    const jobId = await kit.createInstantJob(requester);
    await kit.startInstant(requester, jobId);
    const [offer] = await kit.openOffersOf(jobId);
    await t.db
      .update(instantOffers)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(instantOffers.id, offer!.id));
    const res = await kit.jobs.call(abe!, 'POST', `/api/gnw/offers/${offer!.id}/accept`, {});
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: 'offer_gone', message: 'This offer expired after 30 seconds and went to someone else.' });
    expect((await kit.openOffersOf(jobId)).map((row) => row.userId)).toEqual([bea!.id]);
    const [job] = await t.db.select().from(jobs).where(eq(jobs.id, jobId));
    expect(job?.notaryId).toBeNull();
  });

  it('lets only one of two accepts at once win', async () => {
    const [abe] = await kit.onlineNotaries(['Abe Notary']);
    const requester = await t.createUser({ roles: ['signer'] });
    const jobId = await kit.createInstantJob(requester);
    await kit.startInstant(requester, jobId);
    const [offer] = await kit.openOffersOf(jobId);
    const headers = await kit.jobs.headersFor(abe!);
    const answers = await Promise.all([0, 1].map(() => t.app.inject({ method: 'POST', url: `/api/gnw/offers/${offer!.id}/accept`, headers, payload: {} })));
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 409]);
    expect(await kit.sentencesOf(jobId, ['gnw.notary_matched'])).toHaveLength(1);
  });

  it('then offers the job to online witnesses one at a time until as many as asked accepted, and makes each a witness of the job', async () => {
    const [abe] = await kit.onlineNotaries(['Abe Notary']);
    const wes = await t.createUser({ roles: ['witness'], name: 'Wes Witness' });
    const wil = await t.createUser({ roles: ['witness'], name: 'Wil Witness' });
    await kit.goOnline(wes, wil);
    const requester = await t.createUser({ roles: ['signer'] });
    const jobId = await kit.createInstantJob(requester, { witnesses: 1 });
    await kit.startInstant(requester, jobId);
    expect(await kit.openOffersOf(jobId).then((open) => open.map((offer) => offer.kind))).toEqual(['notary']);
    const [offer] = await kit.openOffersOf(jobId);
    expect((await kit.jobs.call(abe!, 'POST', `/api/gnw/offers/${offer!.id}/accept`, {})).statusCode).toBe(200);
    // An accept answers before the matcher's next pass (decision 051): the witness rings once a pass after it has run.
    await requestMatchingPass(kit.matcher);
    const witnessOffers = await kit.openOffersOf(jobId);
    expect(witnessOffers.map((row) => [row.kind, row.name])).toEqual([['witness', 'Wes Witness']]);
    const listed = await kit.jobs.call(wes, 'GET', '/api/gnw/offers');
    expect(listed.json().items).toEqual([expect.objectContaining({ id: witnessOffers[0]!.id, kind: 'witness', jobId, witnessesRequested: 1 })]);
    const accepted = await kit.jobs.call(wes, 'POST', `/api/gnw/offers/${witnessOffers[0]!.id}/accept`, {});
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json()).toMatchObject({ jobId, sessionPath: `/session/${jobId}` });
    const job = await kit.jobs.getJob(requester, jobId);
    expect(job.participants.filter((person) => person.role === 'witness')).toEqual([
      expect.objectContaining({ name: 'Wes Witness', email: wes.email, hasAccount: true }),
    ]);
    expect((await t.db.select().from(emailOutbox).where(eq(emailOutbox.toAddress, wes.email))).map((row) => row.kind)).toContain('gnw_witness_assigned');
    await kit.runAt(new Date());
    expect(await kit.openOffersOf(jobId)).toEqual([]);
    expect(await kit.sentencesOf(jobId, ['gnw.witness_matched'])).toEqual(['Wes Witness accepted to witness the job as a witness the platform provides.']);
  });
});

describe('two matchers at once', () => {
  it('never make two open offers for one request, nor two for one notary, nor offer anyone a job twice', async () => {
    const second = await createTestApp({ GNW_SEARCH_SECONDS: '120' }, { databaseOf: t, realtime: t.realtime });
    try {
      await kit.onlineNotaries(['Abe Notary', 'Bea Notary', 'Cy Notary']);
      const jobIds: string[] = [];
      for (let index = 0; index < 5; index += 1) {
        const requester = await t.createUser({ roles: ['signer'] });
        const jobId = await kit.createInstantJob(requester);
        jobIds.push(jobId);
        // Searching without the route's own pass: the racing matchers make every offer.
        await t.db.execute(
          sql`update instant_requests set status = 'searching', lane = 'instant', search_started_at = now(), search_ends_at = now() + interval '120 seconds' where job_id = ${jobId}`,
        );
      }
      const offersOfAll = async () => (await Promise.all(jobIds.map((jobId) => kit.offersOf(jobId)))).flat();
      const matchers = [kit.matcher, { db: second.db, realtime: second.realtime, log: second.app.log }];
      for (let round = 0; round < 4; round += 1) {
        const now = new Date(Date.now() + round * offerSeconds * 1000);
        await kit.heartbeatAt(now);
        await Promise.all([...matchers, ...matchers].map((matcher) => runMatchingPass(matcher, now)));
        const open = (await offersOfAll()).filter((offer) => offer.status === 'open');
        expect(open).toHaveLength(3);
        expect(new Set(open.map((offer) => offer.requestId)).size).toBe(open.length);
        expect(new Set(open.map((offer) => offer.userId)).size).toBe(open.length);
      }
      const all = await offersOfAll();
      const pairs = all.map((offer) => `${offer.requestId}/${offer.userId}`);
      expect(new Set(pairs).size).toBe(pairs.length);
      // Four rounds of three notaries: twelve offers over five requests, each of its notaries once.
      expect(all).toHaveLength(12);
    } finally {
      await second.close();
    }
  }, 120_000);
});
