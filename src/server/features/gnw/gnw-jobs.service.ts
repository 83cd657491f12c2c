import { and, eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { createGnwJobInputSchema, GnwEstimate, GnwJob, gnwEstimateInputSchema, updateGnwJobInputSchema } from '#shared/gnw.ts';
import { signerInputSchema } from '#shared/jobs.ts';
import { isSingleLineText } from '#shared/text.ts';
import { instantRequests, jobParticipants, jobs } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError, badRequest, unauthorized } from '#server/lib/errors.ts';
import { hitRateLimit, throwRateLimited } from '#server/lib/rate-limit.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { isUniqueViolation } from '#server/features/auth/users.ts';
import { addParticipant, findParticipants, removeParticipant, updateParticipant } from '#server/features/jobs/participants.service.ts';
import { assertPrintable } from '#server/features/notarization/pdf-fonts.ts';
import { getJobPayment } from '#server/features/payments/payments.service.ts';
import { describeGnwRequest, findActiveGnwRequest, getOwnGnwRequest, type GnwRequestRow } from './gnw-describe.ts';
import { computeGnwEstimate, estimateGnwRequest, pricesNotSet } from './gnw-estimate.ts';

/**
 * Notarize Now jobs (decision 051): a person starts an ordinary job of their own, with themselves as
 * its creator and first signer and no title company, plus its instant_requests row; reads and
 * resumes it on any device; and changes their choices while the request is being set up.
 */

// What other features call (a feature's service is its public API).
export { describeGnwJob, findActiveGnwRequest, findGnwNextAction } from './gnw-describe.ts';

/** Estimates a person may ask for from one network in a minute: the wizard asks again on every change. */
const estimatesPerMinute = 120;

/**
 * POST /api/gnw/estimate: anyone, rate-limited per network. With a jobId, the caller's own request
 * is counted (signed in; anyone else's job is not found); otherwise the counts given. No price set
 * answers 409 prices_not_set: $0 is never shown as a price.
 */
export async function estimateGnw(ctx: Ctx, input: z.output<typeof gnwEstimateInputSchema>): Promise<GnwEstimate> {
  const hits = await hitRateLimit(ctx.db, `gnw-estimate:address:${ctx.ipAddress}`, 60_000);
  if (hits.count > estimatesPerMinute) throwRateLimited('estimates from this network', hits.resetAt);
  let estimate: GnwEstimate | null;
  if (input.jobId) {
    if (!ctx.user) throw unauthorized('Sign in to see the estimate of your notarization.');
    const request = await getOwnGnwRequest(ctx, input.jobId);
    estimate = await estimateGnwRequest(ctx.db, { ...request, signerState: request.signerState ?? input.signerState ?? null });
  } else {
    estimate = await computeGnwEstimate(ctx.db, { acts: input.documents, signers: input.signers, witnesses: input.witnesses }, input.signerState ?? null);
  }
  if (!estimate) throw pricesNotSet();
  return estimate;
}

const activeJobExists = (jobId: string) =>
  new AppError(409, 'gnw_active_job', 'You already have a notarization in progress. Continue it, or cancel it before starting another.', { jobId });

/**
 * POST /api/gnw/jobs: the person's job ("Notarization for {name}" unless titled), with them as its
 * first signer, and its request, in one transaction. A second active request is refused with the
 * first one's job id, so the page can resume it.
 */
export async function createGnwJob(ctx: Ctx, input: z.output<typeof createGnwJobInputSchema>): Promise<GnwJob> {
  const user = ctx.user;
  if (!user) throw unauthorized();
  if (input.title !== undefined && !isSingleLineText(input.title)) {
    throw badRequest('The title must be one line of text, without control characters or text-direction overrides.', [
      { path: 'title', message: 'One line of text.' },
    ]);
  }
  const title = input.title ?? `Notarization for ${user.name}`.slice(0, 200);
  assertPrintable([
    { label: 'job title', text: title },
    { label: 'signer name', text: user.name },
  ]);
  const act = input.act ?? 'acknowledgment';
  const active = await findActiveGnwRequest(ctx.db, user.id);
  if (active) throw activeJobExists(active.jobId);
  let request: GnwRequestRow;
  try {
    request = await ctx.db.transaction(async (tx) => {
      const txCtx = { ...ctx, db: tx };
      const [job] = await tx.insert(jobs).values({ title, notarizationType: act, companyId: null, createdBy: user.id, notaryId: null }).returning();
      if (!job) throw new Error('job insert returned no row');
      await appendAuditEvent(txCtx, {
        jobId: job.id,
        action: 'job.created',
        data: { title: job.title, notarizationType: job.notarizationType, status: job.status, notaryId: null, scheduledAt: null },
      });
      // The person is the first signer, on their own account: nobody needs to invite them.
      const [signer] = await tx
        .insert(jobParticipants)
        .values({ jobId: job.id, userId: user.id, name: user.name, email: user.email, role: 'signer', position: 0 })
        .returning();
      if (!signer) throw new Error('participant insert returned no row');
      await appendAuditEvent(txCtx, {
        jobId: job.id,
        action: 'participant.added',
        data: { participantId: signer.id, name: signer.name, email: signer.email, role: signer.role },
      });
      const [row] = await tx.insert(instantRequests).values({ jobId: job.id, requestedBy: user.id, lane: input.lane, act }).returning();
      if (!row) throw new Error('instant request insert returned no row');
      await appendAuditEvent(txCtx, { jobId: job.id, action: 'gnw.requested', data: { lane: row.lane, act: row.act } });
      return row;
    });
  } catch (error) {
    // Two starts at once: the one-active index let one through; the other resumes it.
    if (!isUniqueViolation(error)) throw error;
    const winner = await findActiveGnwRequest(ctx.db, user.id);
    if (winner) throw activeJobExists(winner.jobId);
    throw error;
  }
  return describeGnwRequest(ctx, request);
}

/** GET /api/gnw/active: the person's active instant job, if any. */
export async function getActiveGnwJob(ctx: Ctx): Promise<{ job: GnwJob | null }> {
  const user = ctx.user;
  if (!user) throw unauthorized();
  const request = await findActiveGnwRequest(ctx.db, user.id);
  return { job: request ? await describeGnwRequest(ctx, request) : null };
}

/** GET /api/gnw/jobs/{jobId}: the person's own request only; anyone else's is not found. */
export async function getGnwJob(ctx: Ctx, jobId: string): Promise<GnwJob> {
  return describeGnwRequest(ctx, await getOwnGnwRequest(ctx, jobId));
}

type UpdateInput = z.output<typeof updateGnwJobInputSchema>;
type OtherSigner = { name: string; email: string };

/** The other signers as the participants' rules have them (names, addresses); 400 with a sentence otherwise. */
function readOtherSigners(list: OtherSigner[], ownEmail: string): OtherSigner[] {
  const signers = list.map((signer, index) => {
    const parsed = signerInputSchema.safeParse({ name: signer.name, email: signer.email, role: 'signer' });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw badRequest(issue?.message ?? 'Each other signer needs a name and an email address.', [
        { path: `otherSigners.${index}.${String(issue?.path[0] ?? 'name')}`, message: issue?.message ?? 'Not valid.' },
      ]);
    }
    return { name: parsed.data.name, email: parsed.data.email };
  });
  if (signers.some((signer) => signer.email === ownEmail.toLowerCase())) {
    throw badRequest('You are already the first signer; list only the other people who sign.');
  }
  const emails = signers.map((signer) => signer.email);
  if (new Set(emails).size !== emails.length) throw badRequest('Each other signer needs a different email address.');
  return signers;
}

/** Replaces the job's other signers with this list through the participants service (invitations included). */
async function replaceOtherSigners(ctx: Ctx, request: GnwRequestRow, wanted: OtherSigner[]): Promise<boolean> {
  const current = (await findParticipants(ctx.db, request.jobId)).filter((person) => person.role === 'signer' && person.userId !== request.requestedBy);
  const wantedByEmail = new Map(wanted.map((signer) => [signer.email, signer]));
  const currentByEmail = new Map(current.map((person) => [person.email, person]));
  let isChanged = false;
  for (const person of current) {
    if (wantedByEmail.has(person.email)) continue;
    await removeParticipant(ctx, request.jobId, person.id);
    isChanged = true;
  }
  for (const signer of wanted) {
    const existing = currentByEmail.get(signer.email);
    if (!existing) {
      await addParticipant(ctx, request.jobId, { ...signer, role: 'signer' });
      isChanged = true;
    } else if (existing.name !== signer.name) {
      await updateParticipant(ctx, request.jobId, existing.id, { name: signer.name });
      isChanged = true;
    }
  }
  return isChanged;
}

const setupLocked = (message: string) => new AppError(409, 'setup_locked', message);

/**
 * PUT /api/gnw/jobs/{jobId}: the wizard's step (always), the time zone (while the request is
 * active), the lane while the request is in setup, and the choices that set the price (act, state,
 * witnesses, other signers) while it is in setup and no card holds its estimate. Only a change of
 * choices is audited.
 */
export async function updateGnwJob(ctx: Ctx, jobId: string, input: UpdateInput): Promise<GnwJob> {
  const user = ctx.user;
  if (!user) throw unauthorized();
  const before = await getOwnGnwRequest(ctx, jobId);
  const otherSigners = input.otherSigners ? readOtherSigners(input.otherSigners, user.email) : undefined;
  const currentOthers = (await findParticipants(ctx.db, jobId))
    .filter((person) => person.role === 'signer' && person.userId !== before.requestedBy)
    .map((person) => ({ name: person.name, email: person.email }));
  const isSameSigners =
    !otherSigners ||
    (otherSigners.length === currentOthers.length &&
      otherSigners.every((signer) => currentOthers.some((other) => other.email === signer.email && other.name === signer.name)));
  const choiceChanges: Record<string, unknown> = {};
  if (input.lane !== undefined && input.lane !== before.lane) choiceChanges.lane = input.lane;
  if (input.act !== undefined && input.act !== before.act) choiceChanges.act = input.act;
  if (input.signerState !== undefined && input.signerState !== before.signerState) choiceChanges.signerState = input.signerState;
  if (input.witnessesRequested !== undefined && input.witnessesRequested !== before.witnessesRequested)
    choiceChanges.witnessesRequested = input.witnessesRequested;
  if (!isSameSigners && otherSigners) choiceChanges.otherSigners = otherSigners;
  const isTimeZoneChanged = input.timeZone !== undefined && input.timeZone !== before.timeZone;

  const hasChoiceChanges = Object.keys(choiceChanges).length > 0;
  // The lane sets no price: it changes in setup even once a card holds the estimate ("Pick a time"
  // after the hold); the choices that set the price change only before the hold.
  const hasPriceChanges = Object.keys(choiceChanges).some((key) => key !== 'lane');
  if (hasPriceChanges) await assertChoicesOpen(ctx, before);
  else if (hasChoiceChanges && before.status !== 'setup') throw choicesClosed(before.status);
  if (isTimeZoneChanged && (before.status === 'completed' || before.status === 'cancelled')) {
    throw setupLocked(`This request is ${before.status}; its time zone no longer matters.`);
  }
  if (choiceChanges.otherSigners && otherSigners) await replaceOtherSigners(ctx, before, otherSigners);

  const request = await ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const locked = await getOwnGnwRequest(txCtx, jobId, { forUpdate: true });
    // A search or booking that began meanwhile closes the choices: they are the ones the card holds.
    if (hasChoiceChanges && locked.status !== 'setup') throw choicesClosed(locked.status);
    const signerCount = 1 + (otherSigners ?? currentOthers).length;
    const [row] = await tx
      .update(instantRequests)
      .set({
        ...(input.step !== undefined ? { step: input.step } : {}),
        ...(isTimeZoneChanged && input.timeZone ? { timeZone: input.timeZone } : {}),
        ...(choiceChanges.lane ? { lane: input.lane } : {}),
        ...(choiceChanges.act ? { act: input.act } : {}),
        ...(choiceChanges.signerState ? { signerState: input.signerState } : {}),
        ...(choiceChanges.witnessesRequested !== undefined ? { witnessesRequested: input.witnessesRequested } : {}),
        signerCount: Math.min(signerCount, 10),
        updatedAt: new Date(),
      })
      .where(eq(instantRequests.id, locked.id))
      .returning();
    if (!row) throw new Error('instant request update returned no row');
    if (choiceChanges.act && input.act) {
      // The job's act follows the person's choice: the notarial certificate is worded from it.
      const [job] = await tx.select({ version: jobs.version }).from(jobs).where(eq(jobs.id, jobId));
      await tx
        .update(jobs)
        .set({ notarizationType: input.act, version: (job?.version ?? 1) + 1, updatedAt: new Date() })
        .where(and(eq(jobs.id, jobId), eq(jobs.status, 'draft')));
    }
    if (hasChoiceChanges) await appendAuditEvent(txCtx, { jobId, action: 'gnw.updated', data: { changes: choiceChanges } });
    return row;
  });
  return describeGnwRequest(ctx, request);
}

function choicesClosed(status: GnwRequestRow['status']): AppError {
  const why: Record<GnwRequestRow['status'], string> = {
    setup: 'Your card already holds the estimate for these choices. Cancel this request to start again with other choices.',
    searching: 'We are already looking for a notary for these choices, so they can no longer change.',
    unmatched: 'The search for these choices has ended; choose a time instead, or cancel to start again with other choices.',
    matched: 'A notary already accepted your job with these choices, so they can no longer change.',
    booked: 'Your session is booked with these choices, so they can no longer change. Cancel it to start again.',
    completed: 'This notarization is complete; its choices can no longer change.',
    cancelled: 'This request was cancelled; start a new one instead.',
  };
  return setupLocked(why[status]);
}

/** The choices that set the price change only in setup, before a card holds the estimate. */
async function assertChoicesOpen(ctx: Ctx, request: GnwRequestRow): Promise<void> {
  if (request.status !== 'setup') throw choicesClosed(request.status);
  const { current } = await getJobPayment(ctx, request.jobId);
  if (current) throw choicesClosed('setup');
}
