import { and, eq } from 'drizzle-orm';
import type { JobActor, JobPermissions } from '#shared/jobs.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { jobParticipants, jobs, titleCompanyMembers } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { forbidden, notFound, unauthorized } from '#server/lib/errors.ts';

export type JobRow = typeof jobs.$inferSelect;
export type ParticipantRow = typeof jobParticipants.$inferSelect;

export interface JobAccess {
  job: JobRow;
  userId: string;
  participant: ParticipantRow | null;
  permissions: JobPermissions;
  /** What the person is to this job for status moves (jobTransitionActors); empty for participants. */
  actors: JobActor[];
}

export const jobNotFound = () => notFound('No job with that id, or you may not see it.');

/** The company a user works for, if any (title company staff). */
export async function findCompanyIdOf(db: DbOrTx, userId: string): Promise<string | null> {
  const [row] = await db.select({ companyId: titleCompanyMembers.companyId }).from(titleCompanyMembers).where(eq(titleCompanyMembers.userId, userId)).limit(1);
  return row?.companyId ?? null;
}

/** Company membership counts only while the person holds a title company role. */
export function hasCompanyStaffRole(roles: readonly string[]): boolean {
  return roles.includes('title') || roles.includes('title_agent');
}

/** Whether a user is on the staff of one given company (a person may work for several). */
async function isMemberOf(db: DbOrTx, userId: string, companyId: string): Promise<boolean> {
  const rows = await db
    .select({ companyId: titleCompanyMembers.companyId })
    .from(titleCompanyMembers)
    .where(and(eq(titleCompanyMembers.userId, userId), eq(titleCompanyMembers.companyId, companyId)))
    .limit(1);
  return rows.length > 0;
}

/**
 * Who may see a job: an admin; its creator (of a company job, while a member of the company); its company's staff; its assigned notary; a signer,
 * witness or observer on it. Anyone else gets 404, never a hint that the job exists.
 */
export async function getJobAccess(ctx: Ctx, jobId: string, options: { forUpdate?: boolean } = {}): Promise<JobAccess> {
  if (ctx.apiKey && !ctx.user) return getCompanyKeyJobAccess(ctx, ctx.apiKey.companyId, jobId, options);
  const user = ctx.user;
  if (!user) throw unauthorized();
  if (!/^[0-9a-f-]{36}$/i.test(jobId)) throw jobNotFound();
  const query = ctx.db.select().from(jobs).where(eq(jobs.id, jobId)).limit(1);
  const [job] = options.forUpdate ? await query.for('update') : await query;
  if (!job) throw jobNotFound();
  const isAdmin = user.roles.includes('admin');
  const isNotary = job.notaryId === user.id;
  const isMember = Boolean(job.companyId && (await isMemberOf(ctx.db, user.id, job.companyId)));
  const isCompanyStaff = isMember && hasCompanyStaffRole(user.roles);
  // A company job belongs to its company: its creator keeps it only while still a member (decision 043).
  const isCreator = job.createdBy === user.id && (!job.companyId || isMember);
  const [participant] = await ctx.db
    .select()
    .from(jobParticipants)
    .where(and(eq(jobParticipants.jobId, jobId), eq(jobParticipants.userId, user.id)))
    .limit(1);
  if (!isAdmin && !isCreator && !isNotary && !isCompanyStaff && !participant) throw jobNotFound();
  const actors: JobActor[] = [];
  if (isAdmin) actors.push('admin');
  if (isCreator || isCompanyStaff) actors.push('preparer');
  if (isNotary) actors.push('notary');
  return {
    job,
    userId: user.id,
    participant: participant ?? null,
    permissions: {
      canEdit: isAdmin || isCreator || isCompanyStaff || isNotary,
      canManageNotary: isAdmin || isCreator || isCompanyStaff,
      canBypassId: isAdmin || isNotary,
      canCompleteDocuments: isAdmin || isNotary,
      isParticipant: Boolean(participant),
    },
    actors,
  };
}

export function requirePermission(access: JobAccess, permission: keyof Omit<JobPermissions, 'isParticipant'>, message?: string): void {
  if (!access.permissions[permission]) throw forbidden(message ?? 'You may view this job but not change it.');
}

/**
 * What a title company's API key may do with a job (decision 054): only its own company's jobs,
 * as the company's staff may (prepare and edit them), never what is a person's (a notary's or a
 * participant's part). Another company's job, or one of no company, is 404 as for anyone.
 */
async function getCompanyKeyJobAccess(ctx: Ctx, companyId: string, jobId: string, options: { forUpdate?: boolean }): Promise<JobAccess> {
  if (!/^[0-9a-f-]{36}$/i.test(jobId)) throw jobNotFound();
  const query = ctx.db
    .select()
    .from(jobs)
    .where(and(eq(jobs.id, jobId), eq(jobs.companyId, companyId)))
    .limit(1);
  const [job] = options.forUpdate ? await query.for('update') : await query;
  if (!job) throw jobNotFound();
  return {
    job,
    // No person acts: the id names nobody, so no rule that compares it with a person matches.
    userId: '',
    participant: null,
    permissions: { canEdit: true, canManageNotary: true, canBypassId: false, canCompleteDocuments: false, isParticipant: false },
    actors: ['preparer'],
  };
}
