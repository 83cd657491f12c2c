import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { meResponseSchema } from '#shared/auth.ts';
import { identityPolicies, type IdentityPolicy } from '#shared/identity-policies.ts';
import { availabilitySlots, instantRequests } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';
import { createGnwKit, type GnwKit } from '#test/gnw-matching-fixtures.ts';
import { createNotary } from '#test/notary-fixtures.ts';
import { getMatchingLoop } from './gnw-loop.service.ts';
import { findGnwSlots } from './gnw-schedule.service.ts';
import { findOpenPieces } from './gnw-slots.ts';

/**
 * The instant lane offers a job only to a notary whose commission allows the act (decision 061): the
 * commissioning state's policy row decides (decision 052's actsNotPerformedOnline), never a branch
 * in code. The platform's rows record no such rule yet, so these tests hand the matcher, the loop
 * page and the open times a table whose Virginia row keeps the acknowledgment off.
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
afterEach(async () => {
  await kit.clearAll();
});

const citation = 'Testland Code § 7 (a rule written for this test)';
const strictRows: IdentityPolicy[] = identityPolicies.map((row) =>
  row.code === 'VA' ? { ...row, actsNotPerformedOnline: [{ act: 'acknowledgment', citation }] } : row,
);
const later = (from: Date, seconds: number) => new Date(from.getTime() + seconds * 1000);

/** The request set searching as POST /api/gnw/instant leaves it, without the pass that route runs on the platform's own rows. */
async function startSearching(jobId: string, now: Date) {
  await t.db
    .update(instantRequests)
    .set({ status: 'searching', lane: 'instant', step: 'notary', searchStartedAt: now, searchEndsAt: later(now, 120) })
    .where(eq(instantRequests.jobId, jobId));
}

describe('an act the notary’s commissioning state keeps off online notarization', () => {
  it('is never offered to that notary; the others are offered it in their usual order', async () => {
    // Abe (Virginia) would come first by name; his row keeps the acknowledgment off.
    const [abe, bea] = await kit.onlineNotaries(['Abe Virginia', 'Bea Virginia']);
    const [tex] = await kit.onlineNotaries(['Tex Texas'], { state: 'TX' });
    const requester = await t.createUser({ roles: ['signer'], name: 'Pat Person' });
    const jobId = await kit.createInstantJob(requester);
    const now = new Date();
    await startSearching(jobId, now);

    await kit.runAt(now, strictRows);
    expect((await kit.openOffersOf(jobId)).map((offer) => offer.userId)).toEqual([tex!.id]);
    // Tex lets it ring out: nobody else may take the act, so nothing rings after him.
    await kit.runAt(later(now, 30), strictRows);
    expect(await kit.openOffersOf(jobId)).toEqual([]);
    expect((await kit.offersOf(jobId)).map((offer) => offer.userId)).toEqual([tex!.id]);
    expect((await kit.offersOf()).some((offer) => offer.userId === abe!.id || offer.userId === bea!.id)).toBe(false);

    // The same notaries take a job of another act.
    const other = await t.createUser({ roles: ['signer'] });
    const juratJob = await kit.createInstantJob(other);
    await t.db.update(instantRequests).set({ act: 'jurat' }).where(eq(instantRequests.jobId, juratJob));
    await startSearching(juratJob, later(now, 31));
    await kit.runAt(later(now, 31), strictRows);
    expect((await kit.openOffersOf(juratJob)).map((offer) => offer.userId)).toEqual([abe!.id]);
  });

  it('on the loop page: left out, saying which state’s rule and its citation; the others keep their order', async () => {
    const [ann] = await kit.onlineNotaries(['Ann Loopva']);
    const [tia, tom] = await kit.onlineNotaries(['Tia Looptx', 'Tom Looptx'], { state: 'TX' });
    const now = new Date();
    await kit.heartbeatAt(now);
    const loop = await getMatchingLoop({ db: t.db }, { act: 'acknowledgment', state: 'TX' }, now, strictRows);
    const ours = loop.candidates.filter((row) => [ann!.id, tia!.id, tom!.id].includes(row.notaryId));
    expect(ours.map((row) => [row.name, row.order, row.eligible])).toEqual([
      ['Tia Looptx', 1, true],
      ['Tom Looptx', 2, true],
      ['Ann Loopva', null, false],
    ]);
    expect(ours.find((row) => row.notaryId === ann!.id)).toMatchObject({
      online: true,
      reason: `Left out: the rules of Virginia do not let an online notary perform this act (Acknowledgment; ${citation}).`,
    });

    // Another act: Ann is back in line, first by name.
    const jurat = await getMatchingLoop({ db: t.db }, { act: 'jurat', state: 'TX' }, now, strictRows);
    expect(jurat.candidates.filter((row) => [ann!.id, tia!.id, tom!.id].includes(row.notaryId)).map((row) => [row.name, row.order])).toEqual([
      ['Ann Loopva', 1],
      ['Tia Looptx', 2],
      ['Tom Looptx', 3],
    ]);
  });

  it('in the open times: that notary’s slots are not listed for the act, the others’ are', async () => {
    const start = new Date(Date.now() + 20 * 24 * 3600_000);
    start.setUTCMinutes(0, 0, 0);
    const end = later(start, 3600);
    const vera = await createNotary(t, { name: 'Vera Slots' });
    const tess = await createNotary(t, { name: 'Tess Slots', state: 'TX' });
    await t.db.insert(availabilitySlots).values([vera, tess].map((notary) => ({ notaryId: notary.id, startsAt: start, endsAt: end, timeZone: 'UTC' })));
    const requester = await t.createUser({ roles: ['signer'] });
    const window = { from: start, to: end, now: new Date(), requesterId: requester.id, jobId: null, policies: strictRows };
    const ours = (pieces: Array<{ notaryName: string }>) => pieces.map((piece) => piece.notaryName).filter((name) => name.endsWith('Slots'));

    expect(ours(await findOpenPieces(t.db, { ...window, act: 'acknowledgment' }))).toEqual(['Tess Slots', 'Tess Slots']);
    expect(ours(await findOpenPieces(t.db, { ...window, act: 'jurat' }))).toEqual(['Tess Slots', 'Vera Slots', 'Tess Slots', 'Vera Slots']);

    // The person's own request picks the act: theirs is an acknowledgment.
    const jobId = await kit.createInstantJob(requester);
    const me = await kit.jobs.call(requester, 'GET', '/api/auth/me');
    const person = { db: t.db, user: meResponseSchema.parse(me.json()).user };
    const listed = await findGnwSlots(person, { jobId, timeZone: 'UTC', from: start.toISOString().slice(0, 10), days: 1 }, window.now, strictRows);
    expect(ours(listed.slots)).toEqual(['Tess Slots', 'Tess Slots']);
  });
});
