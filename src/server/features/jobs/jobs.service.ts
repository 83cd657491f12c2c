import { and, desc, eq, gte, ilike, isNull, lt, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import { formatDateTime } from '#shared/dates.ts';
import {
  getAllowedTransitions,
  getTransitionBlocker,
  getTransitionRefusal,
  isJobEditable,
  jobStatuses,
  notarizationTypes,
  type createJobInputSchema,
  type Job,
  type jobListQuerySchema,
  type JobList,
  type JobStatus,
  type JobStatusCounts,
  type updateJobInputSchema,
} from '#shared/jobs.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { containsPattern } from '#server/db/like.ts';
import { isRootDb } from '#server/db/prepared.ts';
import {
  companyJobTypes,
  documents,
  jobAccess,
  jobParticipants,
  jobs,
  notaryJournalEntries,
  sessionBookings,
  titleCompanies,
  users,
} from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError, badRequest, conflict, unauthorized } from '#server/lib/errors.ts';
import { queueEmail } from '#server/lib/outbox.ts';
import { mailTemplates } from '#server/features/mail/templates.ts';
import { hitRateLimit, throwRateLimited } from '#server/lib/rate-limit.ts';
import { recordNoShowCharge } from '#server/features/pricing/job-charges.service.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { queueWebhookEvent } from '#server/features/integrations/webhook-events.ts';
import { isUniqueViolation } from '#server/features/auth/users.ts';
import { hasFilledFields, publishJobChange } from '#server/features/fields/fields.service.ts';
import { releasePaymentOfCancelledJob } from '#server/features/payments/payments.service.ts';
import { leaveOpenSessions } from '#server/features/video/lobby/session-membership.ts';
import { announceAccessChange } from './access-change.ts';
import { findCompanyIdOf, getJobAccess, requirePermission, type JobAccess, type JobRow } from './job-access.ts';
import { invitedJobIds } from './job-invitations.ts';
import { personalViaMask, readPersonalList, viaInvitation } from './job-list-read.ts';
import { assertNotaryNotAmong, assertNotaryNotOnJob } from './notary-conflict.ts';
import { assertNotaryCanTakeWork } from '#server/features/notaries/notary-eligibility.ts';
import { getJobTypeForCreator, getJobTypeOfCompany } from '#server/features/title-companies/job-types.service.ts';
import { findParticipants, queueParticipantInvite, toParticipant } from './participants.service.ts';
import { findIdentityStates } from '#server/features/identity/identity-evidence.ts';
import { policyOfJob } from '#server/features/identity/identity-access.ts';
import { assertActAllowed } from './job-notarization-types.ts';
import { queueSessionMailForPerson, queueSessionScheduleMail } from '#server/features/calendar/session-invites.ts';
import { assertPrintable } from '#server/features/notarization/pdf-fonts.ts';
import { findMailPerson, jobPageLink, queueJobReadyMail, queueNotaryAssignedMail } from './job-mail.ts';
import { announceSafely, closeRequestOfCancelledJob, lockRequestOfJob } from '#server/features/gnw/gnw-request-close.ts';

export function getNotarizationTypes() {
  return { items: notarizationTypes.map((type) => ({ ...type })) };
}

/** A notary who may take work now (notaries/notary-eligibility.ts): 400 for no notary, 409 with the reason. */
const assertApprovedNotary = assertNotaryCanTakeWork;

export async function createJob(ctx: Ctx, input: z.output<typeof createJobInputSchema>): Promise<Job> {
  const user = ctx.user;
  // A title company's API key makes the company's job, with no person as its creator (decision 054).
  const keyCompanyId = user ? null : (ctx.apiKey?.companyId ?? null);
  if (!user && !keyCompanyId) throw unauthorized();
  assertPrintable([{ label: 'job title', text: input.title }, ...input.signers.map((signer) => ({ label: `${signer.role} name`, text: signer.name }))]);
  const emails = input.signers.map((signer) => signer.email);
  if (new Set(emails).size !== emails.length) throw badRequest('Each participant needs a different email address.');
  const isNotary = user?.roles.includes('notary') ?? false;
  let jobId: string;
  try {
    jobId = await ctx.db.transaction(async (tx) => {
      const txCtx = { ...ctx, db: tx };
      // A job made from a company's job type is that company's job, with the type's instructions as they are now.
      const jobType = input.jobTypeId
        ? keyCompanyId
          ? await getJobTypeOfCompany(tx, input.jobTypeId, keyCompanyId)
          : await getJobTypeForCreator(tx, input.jobTypeId, user?.id ?? '')
        : null;
      const companyId = keyCompanyId ?? jobType?.companyId ?? (user ? await findCompanyIdOf(tx, user.id) : null);
      const notaryId = await chooseNotary(tx, input.notaryId, isNotary && user ? user.id : null, companyId);
      const notary = notaryId ? await assertApprovedNotary(tx, notaryId) : null;
      await assertNotaryNotAmong(tx, notaryId, input.signers);
      assertActAllowed(await policyOfJob(tx, { notaryId }), input.notarizationType);
      const [job] = await tx
        .insert(jobs)
        .values({
          title: input.title,
          notarizationType: input.notarizationType,
          companyId,
          createdBy: user?.id ?? null,
          notaryId,
          scheduledAt: input.scheduledAt ? new Date(input.scheduledAt) : null,
          jobTypeId: jobType?.id ?? null,
          notaryInstructions: jobType?.instructions ? jobType.instructions : null,
        })
        .returning();
      if (!job) throw new Error('job insert returned no row');
      await appendAuditEvent(txCtx, {
        jobId: job.id,
        action: 'job.created',
        data: {
          title: job.title,
          notarizationType: job.notarizationType,
          status: job.status,
          notaryId,
          scheduledAt: input.scheduledAt ?? null,
          ...(jobType ? { jobTypeId: jobType.id, jobTypeName: jobType.name } : {}),
          ...(notaryId && input.notaryId === undefined && notaryId !== user?.id ? { isCompanyDefaultNotary: true } : {}),
        },
      });
      await queueWebhookEvent(tx, companyId, 'job.created', {
        jobId: job.id,
        status: job.status,
        notarizationType: job.notarizationType,
        scheduledAt: job.scheduledAt?.toISOString() ?? null,
        createdAt: job.createdAt.toISOString(),
      });
      // A notary who creates their own job knows it is theirs; anyone else's choice is mailed to them.
      if (notary && notary.id !== user?.id) await queueNotaryAssignedMail(txCtx, job, notary);
      for (const [position, signer] of input.signers.entries()) {
        const [row] = await tx
          .insert(jobParticipants)
          .values({ jobId: job.id, name: signer.name, email: signer.email, role: signer.role, position, invitedAt: new Date() })
          .returning();
        if (!row) throw new Error('participant insert returned no row');
        await queueParticipantInvite(txCtx, job, row);
        await appendAuditEvent(txCtx, {
          jobId: job.id,
          action: 'participant.added',
          data: { participantId: row.id, name: row.name, email: row.email, role: row.role },
        });
      }
      return job.id;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('Each participant needs a different email address.');
    throw error;
  }
  return getJob(ctx, jobId);
}

/**
 * The notary of a new job: the one named; none when the creator sent null; else the creator when
 * they are a notary (their own job), else the default notary of the creator's company, if it has one.
 */
async function chooseNotary(
  db: DbOrTx,
  requested: string | null | undefined,
  creatorAsNotary: string | null,
  companyId: string | null,
): Promise<string | null> {
  if (requested) return requested;
  if (creatorAsNotary) return creatorAsNotary;
  if (requested === null || !companyId) return null;
  const [company] = await db
    .select({ defaultNotaryId: titleCompanies.defaultNotaryId })
    .from(titleCompanies)
    .where(and(eq(titleCompanies.id, companyId), isNull(titleCompanies.closedAt)))
    .limit(1);
  return company?.defaultNotaryId ?? null;
}

async function describeJob(ctx: Ctx, access: JobAccess): Promise<Job> {
  const { job } = access;
  const participants = await findParticipants(ctx.db, job.id);
  const identityStates = await findIdentityStates(ctx.db, job, participants);
  const identityPolicy = await policyOfJob(ctx.db, job);
  const mayReadIdentity = access.permissions.canEdit || access.permissions.canBypassId;
  const counts = await ctx.db
    .select({ count: sql<number>`count(*)::int` })
    .from(documents)
    .where(eq(documents.jobId, job.id));
  const [notary] = job.notaryId ? await ctx.db.select({ name: users.name }).from(users).where(eq(users.id, job.notaryId)) : [];
  const [company] = job.companyId ? await ctx.db.select({ name: titleCompanies.name }).from(titleCompanies).where(eq(titleCompanies.id, job.companyId)) : [];
  const [jobType] = job.jobTypeId
    ? await ctx.db
        .select({ name: companyJobTypes.name, documentTags: companyJobTypes.documentTags })
        .from(companyJobTypes)
        .where(eq(companyJobTypes.id, job.jobTypeId))
    : [];
  return {
    id: job.id,
    title: job.title,
    notarizationType: job.notarizationType,
    status: job.status,
    scheduledAt: job.scheduledAt?.toISOString() ?? null,
    notaryName: notary?.name ?? null,
    companyName: company?.name ?? null,
    participantCount: participants.length,
    documentCount: counts[0]?.count ?? 0,
    createdAt: job.createdAt.toISOString(),
    updatedAt: job.updatedAt.toISOString(),
    version: job.version,
    notaryId: job.notaryId,
    companyId: job.companyId,
    createdBy: job.createdBy,
    // Who manages the job sees everyone's identity state; a signer or witness sees only their own.
    participants: participants.map((participant) =>
      toParticipant(participant, mayReadIdentity || participant.id === access.participant?.id ? identityStates.get(participant.id) : undefined),
    ),
    permissions: access.permissions,
    idBypassMethods: [...identityPolicy.bypassMethods],
    allowedTransitions: getAllowedTransitions(job.status, access.actors),
    jobTypeName: jobType?.name ?? null,
    notaryInstructions: job.notaryInstructions,
    jobTypeDocumentTags: (jobType?.documentTags ?? []) as Job['jobTypeDocumentTags'],
  };
}

export async function getJob(ctx: Ctx, jobId: string): Promise<Job> {
  return describeJob(ctx, await getJobAccess(ctx, jobId));
}

/**
 * The ids of the jobs waiting for the user, as a subquery: open jobs (ready, scheduled, in session)
 * where they sign or witness and have not finished (a required field of theirs is empty, or they
 * filled none yet), and the invitations to their confirmed address they have not accepted.
 */
function waitingJobIds(userId: string): SQL {
  return sql`select p.job_id from job_participants p join jobs j on j.id = p.job_id
    where p.user_id = ${userId} and p.role in ('signer', 'witness') and j.status in ('ready', 'scheduled', 'in_session')
      and (exists (select 1 from document_fields f where f.participant_id = p.id and f.is_required and f.filled_at is null)
        or not exists (select 1 from document_fields f where f.participant_id = p.id and f.filled_at is not null))
    union ${invitedJobIds(userId)}`;
}

/**
 * The jobs list. A person's jobs are read from job_access (decision 029: one row per person and job
 * they may see, kept by triggers from the same rules as getJobAccess), one index range in
 * (updated_at, id) order whose length is the person's own count, whatever the size of the table;
 * admins read the jobs table itself. The filters on job columns join jobs for the person's rows only.
 */
export async function findJobs(ctx: Ctx, query: z.output<typeof jobListQuerySchema>): Promise<JobList> {
  const user = ctx.user;
  // A title company's API key lists its company's jobs and no other (decision 054); "me" is nobody for a key.
  const keyCompanyId = user ? null : (ctx.apiKey?.companyId ?? null);
  if (!user && !keyCompanyId) throw unauthorized();
  const isAdmin = Boolean(user?.roles.includes('admin'));
  // The list as nearly everyone opens it (a page, maybe a status or a title search): one prepared
  // statement on job_access (job-list-read.ts), no statement built per request.
  const isPersonalShape = !query.notary && !query.waitingFor && !query.scheduledFrom && !query.scheduledTo && !query.withStatusCounts;
  if (user && !isAdmin && isPersonalShape && isRootDb(ctx.db)) {
    const { items, total } = await readPersonalList(ctx.db, {
      userId: user.id,
      viaMask: personalViaMask(user.roles),
      status: query.status,
      q: query.q || undefined,
      limit: query.pageSize,
      offset: (query.page - 1) * query.pageSize,
    });
    return { items, total, page: query.page, pageSize: query.pageSize };
  }
  const jobFilters: SQL[] = keyCompanyId ? [eq(jobs.companyId, keyCompanyId)] : [];
  if (query.q) jobFilters.push(ilike(jobs.title, containsPattern(query.q)));
  if (query.notary === 'me') jobFilters.push(user ? eq(jobs.notaryId, user.id) : sql`false`);
  if (query.waitingFor === 'me') jobFilters.push(user ? sql`${jobs.id} = any(array(${waitingJobIds(user.id)}))` : sql`false`);
  if (query.scheduledFrom) jobFilters.push(gte(jobs.scheduledAt, new Date(query.scheduledFrom)));
  if (query.scheduledTo) jobFilters.push(lt(jobs.scheduledAt, new Date(query.scheduledTo)));
  const list = !user ? allJobs(ctx, null, jobFilters) : isAdmin ? allJobs(ctx, user.id, jobFilters) : visibleJobs(ctx, user.id, user.roles, jobFilters);
  // The counts by status keep every filter but the status itself.
  const statusCounts = query.withStatusCounts ? list.countByStatus() : undefined;
  const offset = (query.page - 1) * query.pageSize;
  // The page of ids is sorted and cut first; the joins and the two per-row counts run for those rows only.
  const pageIds = list.page(query.status, query.pageSize, offset).as('page_ids');
  // The counts by status run beside the page and its total and are awaited with them, so a failure
  // of any of the three is the request's error and never an unhandled rejection.
  const [rows, total, counted] = await Promise.all([
    ctx.db
      .select({
        job: jobs,
        notaryName: users.name,
        companyName: titleCompanies.name,
        participantCount: sql<number>`(select count(*)::int from job_participants p where p.job_id = ${jobs.id})`,
        documentCount: sql<number>`(select count(*)::int from documents d where d.job_id = ${jobs.id})`,
        isInvitation: pageIds.isInvitation,
      })
      .from(jobs)
      .innerJoin(pageIds, eq(pageIds.id, jobs.id))
      .leftJoin(users, eq(users.id, jobs.notaryId))
      .leftJoin(titleCompanies, eq(titleCompanies.id, jobs.companyId))
      .orderBy(desc(jobs.updatedAt), desc(jobs.id)),
    list.count(query.status),
    statusCounts,
  ]);
  return {
    items: rows.map(({ job, notaryName, companyName, participantCount, documentCount, isInvitation }) => ({
      id: job.id,
      title: job.title,
      notarizationType: job.notarizationType,
      status: job.status,
      scheduledAt: job.scheduledAt?.toISOString() ?? null,
      notaryName,
      companyName,
      participantCount,
      documentCount,
      createdAt: job.createdAt.toISOString(),
      updatedAt: job.updatedAt.toISOString(),
      isInvitation,
    })),
    total,
    page: query.page,
    pageSize: query.pageSize,
    ...(counted ? { statusCounts: counted } : {}),
  };
}

function toStatusCounts(rows: { status: JobStatus; count: number }[]): JobStatusCounts {
  const counts = Object.fromEntries(jobStatuses.map((status) => [status, 0])) as JobStatusCounts;
  for (const row of rows) counts[row.status] = row.count;
  return counts;
}

/** A person's jobs, from job_access; company jobs only for an account with a company staff role, as getJobAccess. */
function visibleJobs(ctx: Ctx, userId: string, roles: readonly string[], jobFilters: SQL[]) {
  const own = and(eq(jobAccess.userId, userId), sql`(${jobAccess.via} & ${personalViaMask(roles)}) <> 0`);
  // With a filter on jobs, the person's ids are also handed to jobs as an array, so jobs is read by primary
  // key for those rows only: joined plainly, a search was planned as a scan of the whole table (bench/jobs.bench.ts).
  const onlyMine = sql`${jobs.id} = any(array(${ctx.db.select({ id: jobAccess.jobId }).from(jobAccess).where(own)}))`;
  const mine = [own, ...(jobFilters.length > 0 ? [onlyMine, ...jobFilters] : [])];
  const where = (status: JobStatus | undefined) => and(...mine, status ? eq(jobAccess.status, status) : undefined);
  // jobs is joined only when a filter reads it: without one the list and its counts never leave job_access
  const withJobs = <T extends { innerJoin: (table: typeof jobs, on: SQL) => T }>(select: T): T =>
    jobFilters.length > 0 ? select.innerJoin(jobs, eq(jobs.id, jobAccess.jobId)) : select;
  return {
    page: (status: JobStatus | undefined, limit: number, offset: number) =>
      withJobs(
        ctx.db
          .select({ id: jobAccess.jobId, isInvitation: sql<boolean>`(${jobAccess.via} & ${viaInvitation}) <> 0`.as('is_invitation') })
          .from(jobAccess)
          .$dynamic(),
      )
        .where(where(status))
        .orderBy(desc(jobAccess.updatedAt), desc(jobAccess.jobId))
        .limit(limit)
        .offset(offset),
    count: async (status: JobStatus | undefined) => {
      const [row] = await withJobs(
        ctx.db
          .select({ count: sql<number>`count(*)::int` })
          .from(jobAccess)
          .$dynamic(),
      ).where(where(status));
      return row?.count ?? 0;
    },
    countByStatus: async () =>
      toStatusCounts(
        await withJobs(
          ctx.db
            .select({ status: jobAccess.status, count: sql<number>`count(*)::int` })
            .from(jobAccess)
            .$dynamic(),
        )
          .where(where(undefined))
          .groupBy(jobAccess.status),
      ),
  };
}

/**
 * Every job, for an admin; invitations to the admin's own confirmed address are marked as for anyone.
 * Without a person (an API key, whose filters name its company), nothing is an invitation.
 */
function allJobs(ctx: Ctx, userId: string | null, jobFilters: SQL[]) {
  const where = (status: JobStatus | undefined) => and(...jobFilters, status ? eq(jobs.status, status) : undefined);
  const isInvitation = userId ? sql<boolean>`${jobs.id} = any(array(${invitedJobIds(userId)}))` : sql<boolean>`false`;
  return {
    page: (status: JobStatus | undefined, limit: number, offset: number) =>
      ctx.db
        .select({ id: jobs.id, isInvitation: isInvitation.as('is_invitation') })
        .from(jobs)
        .where(where(status))
        .orderBy(desc(jobs.updatedAt), desc(jobs.id))
        .limit(limit)
        .offset(offset),
    count: async (status: JobStatus | undefined) => {
      const [row] = await ctx.db
        .select({ count: sql<number>`count(*)::int` })
        .from(jobs)
        .where(where(status));
      return row?.count ?? 0;
    },
    countByStatus: async () =>
      toStatusCounts(
        await ctx.db
          .select({ status: jobs.status, count: sql<number>`count(*)::int` })
          .from(jobs)
          .where(where(undefined))
          .groupBy(jobs.status),
      ),
  };
}

/**
 * A job booked through Notarize Now keeps the booked time (decision 051): the booking, the calendar
 * invitations of both sides and its reminders hold it, so neither its notary nor its owner moves it,
 * clears it or takes the job back to ready here (409); the booking is cancelled and another booked.
 */
async function assertBookedTimeKept(tx: DbOrTx, job: JobRow, nextScheduledAt: Date | null, nextStatus: JobRow['status'] | undefined): Promise<void> {
  const movesTime = (nextScheduledAt?.getTime() ?? null) !== (job.scheduledAt?.getTime() ?? null);
  const unschedules = job.status === 'scheduled' && nextStatus === 'ready';
  if (!movesTime && !unschedules) return;
  const [booking] = await tx
    .select({ id: sessionBookings.id })
    .from(sessionBookings)
    .where(and(eq(sessionBookings.jobId, job.id), eq(sessionBookings.status, 'booked')))
    .limit(1);
  if (booking)
    throw conflict('This job’s time is booked through Notarize Now, and both calendars hold it: to change it, cancel the booking and book another time.');
}

/** Edits a job and moves it along the state machine; a stale version answers 412, an illegal move 409. */
export async function updateJob(ctx: Ctx, jobId: string, input: z.output<typeof updateJobInputSchema>): Promise<Job> {
  const { movedTo, told } = await ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    // Requests before jobs, as the Notarize Now calls lock them (gnw-request-close.ts).
    await lockRequestOfJob(tx, jobId);
    const access = await getJobAccess(txCtx, jobId, { forUpdate: true });
    requirePermission(access, 'canEdit');
    assertPrintable([{ label: 'job title', text: input.title }]);
    const { job } = access;
    if (input.version !== job.version) {
      throw new AppError(412, 'stale_version', 'Someone changed this job after you loaded it. Reload to see the latest version.', {
        currentVersion: job.version,
      });
    }
    const changes: Partial<JobRow> = {};
    const told: string[] = [];
    const isDetailChange = input.title !== undefined || input.notarizationType !== undefined || input.scheduledAt !== undefined;
    if (isDetailChange && !isJobEditable(job.status)) throw new AppError(409, 'job_locked', `A job that is ${job.status.replace('_', ' ')} cannot be edited.`);
    if (input.title !== undefined) changes.title = input.title;
    if (input.notarizationType !== undefined) {
      assertActAllowed(await policyOfJob(tx, job), input.notarizationType);
      changes.notarizationType = input.notarizationType;
    }
    if (input.scheduledAt !== undefined) changes.scheduledAt = input.scheduledAt ? new Date(input.scheduledAt) : null;
    if (input.status !== undefined && input.status !== job.status) {
      const scheduledAt = changes.scheduledAt !== undefined ? changes.scheduledAt : job.scheduledAt;
      await assertStatusMove(tx, access, input.status, scheduledAt);
      changes.status = input.status;
    }
    const nextScheduledAt = changes.scheduledAt !== undefined ? changes.scheduledAt : job.scheduledAt;
    await assertBookedTimeKept(tx, job, nextScheduledAt, changes.status);
    if ((changes.status ?? job.status) === 'scheduled' && !nextScheduledAt) {
      throw conflict('A scheduled job needs a date and time; move it back to ready before clearing the date.');
    }
    await tx
      .update(jobs)
      .set({ ...changes, version: job.version + 1, updatedAt: new Date() })
      .where(eq(jobs.id, jobId));
    if (input.noShow && changes.status !== 'cancelled') throw conflict('Only a cancellation can be a no-show, and this job is cancelled already.');
    if (input.noShow && job.status !== 'ready' && job.status !== 'scheduled') {
      throw conflict('Only a job waiting for its session can be cancelled as a no-show.');
    }
    if (changes.status) {
      const noShow = changes.status === 'cancelled' && input.noShow === true;
      await appendAuditEvent(txCtx, {
        jobId,
        action: 'job.status_changed',
        data: { from: job.status, to: changes.status, reason: input.reason ?? null, ...(noShow ? { noShow } : {}) },
      });
      // Nobody came: the no-show fee of the prices, if they have one, is charged now (decision 049).
      const charged = noShow ? await recordNoShowCharge(txCtx, { id: jobId, companyId: job.companyId }) : null;
      // A Notarize Now job's request, offers and booking end with it (both sides get the calendar's CANCEL).
      if (changes.status === 'cancelled') {
        const closed = await closeRequestOfCancelledJob(
          txCtx,
          jobId,
          { cancelledBy: ctx.user?.name ?? (ctx.apiKey ? `The API key “${ctx.apiKey.name}”` : 'Someone'), feeCents: charged?.amountCents ?? 0, isLate: noShow },
          new Date(),
        );
        told.push(...closed.told);
      }
    }
    // The session's time reaches everyone's calendar, and leaves it when it is called off (decision 052).
    await queueSessionScheduleMail(
      txCtx,
      {
        job: { id: jobId, title: changes.title ?? job.title, notaryId: job.notaryId },
        version: job.version + 1,
        before: { scheduledAt: job.scheduledAt, status: job.status },
        after: { scheduledAt: nextScheduledAt, status: changes.status ?? job.status },
      },
      new Date(),
    );
    // The notary learns their job is ready, unless they made it ready themselves.
    if (changes.status === 'ready' && job.notaryId && job.notaryId !== access.userId) {
      const notary = await findMailPerson(tx, job.notaryId);
      if (notary) await queueJobReadyMail(txCtx, { id: jobId, title: changes.title ?? job.title }, notary);
    }
    const { status: _status, ...details } = changes;
    if (Object.keys(details).length > 0) {
      await appendAuditEvent(txCtx, {
        jobId,
        action: 'job.updated',
        data: { ...details, scheduledAt: details.scheduledAt === undefined ? undefined : (details.scheduledAt?.toISOString() ?? null) },
      });
    }
    return { movedTo: changes.status ?? null, told };
  });
  // An open signing workspace learns at once that the session started (or anything else changed).
  await publishJobChange(ctx, jobId, { type: 'job.changed' });
  await announceSafely(ctx, told);
  // The cancellation committed, a card hold is let go (decision 050); a failure is recorded, never the cancellation's.
  if (movedTo === 'cancelled') await releasePaymentOfCancelledJob(ctx, jobId);
  return getJob(ctx, jobId);
}

/** Emails every participant that the job changed or is ready, with a link to it. */
export async function notifyParticipants(ctx: Ctx, jobId: string): Promise<{ notified: number }> {
  const access = await getJobAccess(ctx, jobId);
  requirePermission(access, 'canEdit');
  const hits = await hitRateLimit(ctx.db, `notify:job:${jobId}`, 3600_000);
  if (hits.count > 5) throwRateLimited('notifications for this job', hits.resetAt);
  return ctx.db.transaction(async (tx) => {
    const participants = await findParticipants(tx, jobId);
    for (const participant of participants) {
      await queueEmail(tx, {
        to: participant.email,
        kind: 'job_update',
        ...mailTemplates.jobUpdate.render({
          name: participant.name,
          title: access.job.title,
          status: access.job.status.replace('_', ' '),
          // The server knows no reader's zone: the date is written in UTC, and says so.
          scheduledFor: access.job.scheduledAt ? formatDateTime(access.job.scheduledAt, { locale: 'en-US', timeZone: 'UTC' }) : null,
          link: jobPageLink(ctx, jobId),
        }),
      });
    }
    await appendAuditEvent({ ...ctx, db: tx }, { jobId, action: 'job.participants_notified', data: { count: participants.length } });
    return { notified: participants.length };
  });
}

export async function notifyReadyForNotary(ctx: Ctx, jobId: string): Promise<{ notified: number }> {
  const access = await getJobAccess(ctx, jobId);
  requirePermission(access, 'canEdit');
  const { job } = access;
  if (!job.notaryId) throw conflict('Assign a notary to this job first.');
  if (job.status !== 'ready' && job.status !== 'scheduled') throw conflict('Only a ready or scheduled job can be sent to the notary.');
  const hits = await hitRateLimit(ctx.db, `notify-notary:job:${jobId}`, 3600_000);
  if (hits.count > 5) throwRateLimited('notifications for this job', hits.resetAt);
  const notary = await assertApprovedNotary(ctx.db, job.notaryId);
  await ctx.db.transaction(async (tx) => {
    await queueJobReadyMail({ ...ctx, db: tx }, job, notary, 'job_ready_for_notary');
    await appendAuditEvent({ ...ctx, db: tx }, { jobId, action: 'job.notary_notified', data: { notaryId: notary.id, notaryName: notary.name } });
  });
  return { notified: 1 };
}

export async function replaceNotary(ctx: Ctx, jobId: string, notaryId: string | null): Promise<Job> {
  await ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const access = await getJobAccess(txCtx, jobId, { forUpdate: true });
    requirePermission(access, 'canManageNotary', 'Only the job’s owner, its company or an administrator may change the notary.');
    const { job } = access;
    if (!isJobEditable(job.status)) throw new AppError(409, 'job_locked', `The notary cannot change while the job is ${job.status.replace('_', ' ')}.`);
    if (notaryId !== job.notaryId && (await hasFilledFields(tx, { jobId, isNotaryOnly: true }))) {
      throw new AppError(409, 'notary_signed', 'The notary has already filled notary fields on this job, so the notary can no longer change.');
    }
    // Fields are filled only in a session the job's notary started: another notary never saw those signatures made.
    if (notaryId !== job.notaryId && (await hasFilledFields(tx, { jobId }))) {
      throw new AppError(
        409,
        'notary_signed',
        'Fields were already filled in front of this job’s notary, so the notary can no longer change. Cancel the job and start a new one to use another notary.',
      );
    }
    const notary = notaryId ? await assertApprovedNotary(tx, notaryId) : null;
    await assertNotaryNotOnJob(tx, jobId, notaryId);
    assertActAllowed(await policyOfJob(tx, { notaryId }), job.notarizationType);
    if (!notary && job.status === 'scheduled') throw conflict('A scheduled job needs a notary; unschedule it first.');
    await tx
      .update(jobs)
      .set({ notaryId, version: job.version + 1, updatedAt: new Date() })
      .where(eq(jobs.id, jobId));
    if (job.notaryId && job.notaryId !== notaryId) await leaveOpenSessions(tx, jobId, job.notaryId);
    // An announced session leaves the previous notary's calendar and reaches the next one's (decision 052).
    if (job.notaryId !== notaryId) {
      const now = new Date();
      const change = { job, version: job.version + 1 } as const;
      if (job.notaryId) await queueSessionMailForPerson(txCtx, { ...change, person: { kind: 'notary', userId: job.notaryId }, change: 'leaves' }, now);
      if (notaryId) await queueSessionMailForPerson(txCtx, { ...change, person: { kind: 'notary', userId: notaryId }, change: 'joins' }, now);
    }
    // A journal entry belongs to the notary who performs the act: drafts the previous notary stored
    // go with the change, and the next notary's drafts are made again from what the platform records.
    // A finalized entry is never touched (and a job with one is sealed, so no longer editable here).
    const discardedDrafts =
      job.notaryId !== notaryId
        ? await tx
            .delete(notaryJournalEntries)
            .where(and(eq(notaryJournalEntries.jobId, jobId), eq(notaryJournalEntries.status, 'draft')))
            .returning({ id: notaryJournalEntries.id })
        : [];
    const [previous] = job.notaryId ? await tx.select({ name: users.name }).from(users).where(eq(users.id, job.notaryId)).limit(1) : [];
    await appendAuditEvent(txCtx, {
      jobId,
      action: 'job.notary_replaced',
      data: {
        from: job.notaryId,
        fromName: previous?.name ?? null,
        to: notaryId,
        toName: notary?.name ?? null,
        journalDraftsDiscarded: discardedDrafts.length,
      },
    });
    if (notary && notary.id !== job.notaryId) await queueNotaryAssignedMail(txCtx, job, notary);
  });
  // The notary who was replaced loses the job: their open channels check again.
  await announceAccessChange(ctx, jobId);
  return getJob(ctx, jobId);
}

/**
 * Throws unless these people may move the job to `to` now: the transition table and who makes
 * each move (403 or 409), then its preconditions (409). PATCH and the live session both use it.
 */
export async function assertStatusMove(tx: DbOrTx, access: JobAccess, to: JobStatus, scheduledAt: Date | null): Promise<void> {
  const { job } = access;
  const refusal = getTransitionRefusal(job.status, to, access.actors);
  if (refusal) {
    const detail = { from: job.status, to, allowed: getAllowedTransitions(job.status, access.actors) };
    throw new AppError(refusal.kind === 'forbidden' ? 403 : 409, refusal.kind, refusal.message, detail);
  }
  if (to === 'in_session') await assertNotaryNotOnJob(tx, job.id, job.notaryId);
  const [{ signerCount = 0 } = {}] = await tx
    .select({ signerCount: sql<number>`count(*)::int` })
    .from(jobParticipants)
    .where(and(eq(jobParticipants.jobId, job.id), eq(jobParticipants.role, 'signer')));
  const [{ documentCount = 0 } = {}] = await tx
    .select({ documentCount: sql<number>`count(*)::int` })
    .from(documents)
    .where(eq(documents.jobId, job.id));
  const blocker = getTransitionBlocker(job.status, to, {
    signerCount,
    documentCount,
    hasNotary: job.notaryId !== null,
    scheduledAt: scheduledAt?.toISOString() ?? null,
  });
  if (blocker) throw new AppError(409, 'invalid_transition', blocker, { from: job.status, to, allowed: getAllowedTransitions(job.status, access.actors) });
}

/**
 * Moves a job to another status inside the caller's transaction (access read with forUpdate), by the
 * rules of assertStatusMove, with its audit event. The caller publishes the change after commit, and
 * after a move to 'cancelled' releases the job's payment (releasePaymentOfCancelledJob), as updateJob does.
 */
export async function moveJobStatus(txCtx: Ctx, access: JobAccess, to: JobStatus, reason: string | null): Promise<void> {
  const { job } = access;
  await assertStatusMove(txCtx.db, access, to, job.scheduledAt);
  await txCtx.db
    .update(jobs)
    .set({ status: to, version: job.version + 1, updatedAt: new Date() })
    .where(eq(jobs.id, job.id));
  await appendAuditEvent(txCtx, { jobId: job.id, action: 'job.status_changed', data: { from: job.status, to, reason } });
}
