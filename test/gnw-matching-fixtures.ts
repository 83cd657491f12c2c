import { randomUUID } from 'node:crypto';
import { and, asc, eq, inArray } from 'drizzle-orm';
import { expect } from 'vitest';
import { describeAuditEvent } from '#shared/audit-sentences.ts';
import type { IdentityPolicy } from '#shared/identity-policies.ts';
import { auditEvents, instantOffers, instantRequests, jobParticipants, notaryPresence, payments, users } from '#server/db/schema/index.ts';
import { runMatchingPass } from '#server/features/gnw/gnw-matching.ts';
import type { TestApp, TestUser } from './create-test-app.ts';
import { createJobKit } from './job-fixtures.ts';
import { createNotary, type TestNotaryOptions } from './notary-fixtures.ts';

/**
 * Notarize Now matching over one test app (decision 051): people with an instant request and a held
 * card payment, notaries and witnesses online, and the matcher run at a clock the test moves.
 *
 * The request and its held payment are written as rows: the wizard's calls that make them
 * (POST /api/gnw/jobs, /preauth) are another part of the feature; the job, its signer and its
 * document are made through the real API.
 */
export function createGnwKit(t: TestApp) {
  const jobs = createJobKit(t);
  const matcher = { db: t.db, realtime: t.realtime, log: t.app.log };

  /** A person's instant job: the job with them as its signer and a PDF, the request in setup, and (unless told) the estimate held on their card. */
  async function createInstantJob(
    requester: TestUser,
    options: { witnesses?: number; isHeld?: boolean; otherSigners?: Array<{ name: string; email: string }> } = {},
  ) {
    const job = await jobs.createJob(requester, {
      title: 'Affidavit of residence',
      signers: [{ name: requester.name, email: requester.email }, ...(options.otherSigners ?? [])],
    });
    await jobs.uploadPdf(requester, job.id);
    await t.db
      .update(jobParticipants)
      .set({ userId: requester.id })
      .where(and(eq(jobParticipants.jobId, job.id), eq(jobParticipants.email, requester.email)));
    await t.db.insert(instantRequests).values({
      jobId: job.id,
      requestedBy: requester.id,
      act: 'acknowledgment',
      signerState: 'TX',
      timeZone: 'America/Chicago',
      signerCount: 1 + (options.otherSigners?.length ?? 0),
      witnessesRequested: options.witnesses ?? 0,
      step: 'payment',
      estimateCents: 3900,
    });
    if (options.isHeld !== false) {
      await t.db.insert(payments).values({
        jobId: job.id,
        provider: 'stripe',
        externalId: `pi_fixture_${randomUUID().replace(/-/g, '')}`,
        amountCents: 3900,
        status: 'held',
        idempotencyKey: `fixture-hold-${randomUUID()}`,
        createdBy: requester.id,
      });
    }
    return job.id;
  }

  /** Puts these people online through the real toggle (a notary or a witness), each with a browser id of their own. */
  async function goOnline(...people: TestUser[]) {
    for (const person of people) {
      const res = await jobs.call(person, 'POST', '/api/notary-availability/toggle', { is_available: true, session_id: `browser-${person.id.slice(0, 8)}` });
      expect(res.statusCode, res.body).toBe(200);
    }
  }

  /** The heartbeats of everyone online, as if their browsers had just sent one at `at` (the clock the test moved to). */
  async function heartbeatAt(at: Date) {
    await t.db.update(notaryPresence).set({ lastHeartbeatAt: at }).where(eq(notaryPresence.isAvailable, true));
  }

  /** Notaries, approved and in force unless told otherwise, online. */
  async function onlineNotaries(names: string[], options: Partial<TestNotaryOptions> = {}): Promise<TestUser[]> {
    const notaries: TestUser[] = [];
    for (const name of names) notaries.push(await createNotary(t, { ...options, name }));
    await goOnline(...notaries);
    return notaries;
  }

  /** The matcher at `now`, everyone's browsers having beaten at that time; `policies` hands it another table of state rows. */
  async function runAt(now: Date, policies?: readonly IdentityPolicy[]) {
    await heartbeatAt(now);
    return runMatchingPass(matcher, now, policies);
  }

  const put = async (user: TestUser, url: string, payload: Record<string, unknown>) =>
    t.app.inject({ method: 'PUT', url, headers: await jobs.headersFor(user), payload });

  const startInstant = (requester: TestUser, jobId: string) => jobs.call(requester, 'POST', '/api/gnw/instant', { jobId });

  async function offersOf(jobId?: string) {
    const rows = await t.db
      .select({ offer: instantOffers, name: users.name })
      .from(instantOffers)
      .innerJoin(users, eq(users.id, instantOffers.userId))
      .leftJoin(instantRequests, eq(instantRequests.id, instantOffers.requestId))
      .where(jobId ? eq(instantRequests.jobId, jobId) : undefined)
      .orderBy(asc(instantOffers.offeredAt), asc(users.name));
    return rows.map((row) => ({ ...row.offer, name: row.name }));
  }

  async function openOffersOf(jobId?: string) {
    return (await offersOf(jobId)).filter((offer) => offer.status === 'open');
  }

  async function requestOf(jobId: string) {
    const [row] = await t.db.select().from(instantRequests).where(eq(instantRequests.jobId, jobId));
    if (!row) throw new Error(`no request for ${jobId}`);
    return row;
  }

  /** The sentences of these actions in the job's trail. */
  async function sentencesOf(jobId: string, actions: string[]): Promise<string[]> {
    const rows = await t.db
      .select({ event: auditEvents, actorName: users.name })
      .from(auditEvents)
      .leftJoin(users, eq(users.id, auditEvents.actorId))
      .where(and(eq(auditEvents.jobId, jobId), inArray(auditEvents.action, actions)))
      .orderBy(asc(auditEvents.sequence));
    return rows.map(({ event, actorName }) =>
      describeAuditEvent({ action: event.action, actorName, actorId: event.actorId, data: (event.data ?? {}) as Record<string, unknown> }),
    );
  }

  /** Between tests sharing an app: everybody offline, every active request cancelled, every ringing offer withdrawn. */
  async function clearAll() {
    await t.db.update(notaryPresence).set({ isAvailable: false });
    await t.db
      .update(instantRequests)
      .set({ status: 'cancelled' })
      .where(inArray(instantRequests.status, ['setup', 'searching', 'unmatched', 'matched', 'booked']));
    await t.db.update(instantOffers).set({ status: 'withdrawn' }).where(eq(instantOffers.status, 'open'));
  }

  return {
    jobs,
    matcher,
    put,
    clearAll,
    createInstantJob,
    goOnline,
    heartbeatAt,
    onlineNotaries,
    runAt,
    startInstant,
    offersOf,
    openOffersOf,
    requestOf,
    sentencesOf,
  };
}

export type GnwKit = ReturnType<typeof createGnwKit>;
