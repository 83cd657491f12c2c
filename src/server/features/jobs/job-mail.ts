import { and, eq, like, or } from 'drizzle-orm';
import type { DbOrTx } from '#server/db/client.ts';
import { emailOutbox, jobParticipants, titleCompanyMembers, users } from '#server/db/schema/index.ts';
import { containsPattern } from '#server/db/like.ts';
import type { Ctx } from '#server/lib/context.ts';
import { queueEmail } from '#server/lib/outbox.ts';
import { mailTemplates } from '#server/features/mail/templates.ts';
import type { JobRow } from './job-access.ts';

/**
 * The mail a job's changes send. Each function queues inside the caller's
 * transaction, the one that makes the change, so a mail is never lost nor sent for a change that was
 * rolled back. Every link is to the job page, which checks who opens it: no document is attached or
 * linked directly.
 */
type MailCtx = Pick<Ctx, 'config'> & { db: DbOrTx };
type MailJob = Pick<JobRow, 'id' | 'title'>;
interface Person {
  name: string;
  email: string;
}

export const jobPageLink = (ctx: Pick<Ctx, 'config'>, jobId: string) => `${ctx.config.publicUrl}/jobs/detail?jobId=${jobId}`;

/**
 * The notary is told a job was assigned to them (at creation or by replace-notary). One mail waiting
 * to be sent already says so: replace-notary flipped back and forth queued one mail per flip.
 */
export async function queueNotaryAssignedMail(ctx: MailCtx, job: MailJob, notary: Person): Promise<void> {
  const [waiting] = await ctx.db
    .select({ id: emailOutbox.id })
    .from(emailOutbox)
    .where(
      and(
        eq(emailOutbox.toAddress, notary.email.toLowerCase()),
        eq(emailOutbox.kind, 'job_assigned'),
        eq(emailOutbox.status, 'pending'),
        like(emailOutbox.textBody, containsPattern(jobPageLink(ctx, job.id))),
      ),
    )
    .limit(1);
  if (waiting) return;
  await queueEmail(ctx.db, {
    to: notary.email,
    kind: 'job_assigned',
    ...mailTemplates.jobAssigned.render({ name: notary.name, title: job.title, link: jobPageLink(ctx, job.id) }),
  });
}

/** The notary is told their job became ready (by someone else: who made it ready knows). */
export async function queueJobReadyMail(ctx: MailCtx, job: MailJob, notary: Person, kind: 'job_ready' | 'job_ready_for_notary' = 'job_ready'): Promise<void> {
  await queueEmail(ctx.db, {
    to: notary.email,
    kind,
    ...mailTemplates.jobReady.render({ name: notary.name, title: job.title, link: jobPageLink(ctx, job.id) }),
  });
}

/** The name and address of a user, for a mail to them. */
export async function findMailPerson(db: DbOrTx, userId: string): Promise<Person | null> {
  const [row] = await db.select({ name: users.name, email: users.email }).from(users).where(eq(users.id, userId)).limit(1);
  return row ?? null;
}

/**
 * The addresses a completed job's signer is told at: the account that took the participant's place
 * (where they sign in to download), else the address they were invited at.
 */
async function findSignerAddresses(db: DbOrTx, jobId: string): Promise<Person[]> {
  const rows = await db
    .select({ name: jobParticipants.name, invitedAt: jobParticipants.email, accountEmail: users.email })
    .from(jobParticipants)
    .leftJoin(users, eq(users.id, jobParticipants.userId))
    .where(and(eq(jobParticipants.jobId, jobId), eq(jobParticipants.role, 'signer')));
  return rows.map((row) => ({ name: row.name, email: row.accountEmail ?? row.invitedAt }));
}

/**
 * The title company's people told that a job completed: whoever created the job, if on the company's
 * staff, and the company's account holders (membership role `title`), each once.
 */
async function findCompanyAddresses(db: DbOrTx, job: Pick<JobRow, 'companyId' | 'createdBy'>): Promise<Person[]> {
  if (!job.companyId) return [];
  const rows = await db
    .select({ name: users.name, email: users.email, status: users.status })
    .from(titleCompanyMembers)
    .innerJoin(users, eq(users.id, titleCompanyMembers.userId))
    .where(
      and(
        eq(titleCompanyMembers.companyId, job.companyId),
        job.createdBy ? or(eq(titleCompanyMembers.role, 'title'), eq(titleCompanyMembers.userId, job.createdBy)) : eq(titleCompanyMembers.role, 'title'),
      ),
    );
  const seen = new Set<string>();
  return rows.filter((row) => row.status === 'active' && !seen.has(row.email) && seen.add(row.email));
}

/**
 * A sealed job: each signer is sent the job page where the notarized documents are downloaded once
 * signed in, and the title company is told it completed.
 */
export async function queueJobCompletedMail(ctx: MailCtx, job: Pick<JobRow, 'id' | 'title' | 'companyId' | 'createdBy'>): Promise<void> {
  for (const signer of await findSignerAddresses(ctx.db, job.id)) {
    await queueEmail(ctx.db, {
      to: signer.email,
      kind: 'job_completed',
      ...mailTemplates.jobCompletedSigner.render({ name: signer.name, title: job.title, link: jobPageLink(ctx, job.id) }),
    });
  }
  for (const member of await findCompanyAddresses(ctx.db, job)) {
    await queueEmail(ctx.db, {
      to: member.email,
      kind: 'job_completed_company',
      ...mailTemplates.jobCompletedCompany.render({ name: member.name, title: job.title, link: jobPageLink(ctx, job.id) }),
    });
  }
}
