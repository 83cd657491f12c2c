import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { ParticipantIdentityState } from '#shared/identity.ts';
import { isJobEditable, type Participant, type idBypassInputSchema, type signerInputSchema, type updateSignerInputSchema } from '#shared/jobs.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { invites, jobParticipants } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { createToken, hashToken } from '#server/lib/crypto.ts';
import { AppError, badRequest, conflict, notFound } from '#server/lib/errors.ts';
import { queueEmail } from '#server/lib/outbox.ts';
import { mailTemplates } from '#server/features/mail/templates.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { queueWebhookEvent } from '#server/features/integrations/webhook-events.ts';
import { isUniqueViolation } from '#server/features/auth/users.ts';
import { hasFilledFields } from '#server/features/fields/fields.service.ts';
import { announceAccessChange } from './access-change.ts';
import { queueSessionMailForPerson } from '#server/features/calendar/session-invites.ts';
import { getJobAccess, requirePermission, type JobRow, type ParticipantRow } from './job-access.ts';
import { assertNotaryNotAmong } from './notary-conflict.ts';
import { policyOfJob } from '#server/features/identity/identity-access.ts';
import { forgetIdentityOfChangedPerson } from '#server/features/identity/identity.service.ts';
import { assertPrintable } from '#server/features/notarization/pdf-fonts.ts';

const bypassMethodWords = { personal_knowledge: 'personal knowledge', credible_witness: 'a credible witness' } as const;

export const inviteLifetimeMs = 7 * 86_400_000;
export const reminderCooldownMs = 10 * 60_000;

export function toParticipant(row: ParticipantRow, identityState?: ParticipantIdentityState): Participant {
  return {
    ...(identityState ? { identityState } : {}),
    id: row.id,
    name: row.name,
    email: row.email,
    role: row.role,
    position: row.position,
    hasAccount: row.userId !== null,
    isIdBypassed: row.isIdBypassed,
    idBypassReason: row.idBypassReason,
    idBypassMethod: row.idBypassMethod,
    invitedAt: row.invitedAt?.toISOString() ?? null,
    lastRemindedAt: row.lastRemindedAt?.toISOString() ?? null,
  };
}

export async function findParticipants(db: DbOrTx, jobId: string): Promise<ParticipantRow[]> {
  return db.select().from(jobParticipants).where(eq(jobParticipants.jobId, jobId)).orderBy(asc(jobParticipants.position), asc(jobParticipants.createdAt));
}

/**
 * Issues a single-use, 7-day invitation link for one participant (earlier unused links stop
 * working, unless keepsEarlierLinks) and queues the email, inside the caller's transaction.
 */
export async function queueParticipantInvite(
  ctx: Pick<Ctx, 'config'> & { db: DbOrTx },
  job: Pick<JobRow, 'id' | 'title' | 'companyId'>,
  participant: Pick<ParticipantRow, 'id' | 'name' | 'email' | 'role'>,
  options: { toAddress?: string; isReminder?: boolean; keepsEarlierLinks?: boolean } = {},
): Promise<void> {
  const token = createToken();
  if (!options.keepsEarlierLinks) {
    await ctx.db
      .update(invites)
      .set({ revokedAt: new Date() })
      .where(and(eq(invites.participantId, participant.id), isNull(invites.usedAt), isNull(invites.revokedAt)));
  }
  await ctx.db.insert(invites).values({
    tokenHash: hashToken(token),
    purpose: 'job_participant',
    roles: [participant.role],
    email: participant.email,
    sentTo: options.toAddress ?? participant.email,
    jobId: job.id,
    participantId: participant.id,
    expiresAt: new Date(Date.now() + inviteLifetimeMs),
  });
  await queueEmail(ctx.db, {
    to: options.toAddress ?? participant.email,
    kind: options.isReminder ? 'job_invite_reminder' : 'job_invite',
    ...mailTemplates.jobInvite.render({
      name: participant.name,
      title: job.title,
      role: participant.role,
      isReminder: options.isReminder ?? false,
      link: `${ctx.config.publicUrl}/claim/${token}`,
    }),
  });
  // A reminder or a fresh link is not a new invitation.
  if (!options.isReminder) {
    await queueWebhookEvent(ctx.db, job.companyId, 'participant.invited', {
      jobId: job.id,
      participantId: participant.id,
      role: participant.role,
      invitedAt: new Date().toISOString(),
    });
  }
}

function assertEditable(job: JobRow): void {
  if (!isJobEditable(job.status)) throw new AppError(409, 'job_locked', `Participants cannot change while the job is ${job.status.replace('_', ' ')}.`);
}

export async function addParticipant(ctx: Ctx, jobId: string, input: z.output<typeof signerInputSchema>): Promise<Participant> {
  try {
    return await ctx.db.transaction(async (tx) => {
      const txCtx = { ...ctx, db: tx };
      const access = await getJobAccess(txCtx, jobId, { forUpdate: true });
      requirePermission(access, 'canEdit');
      assertEditable(access.job);
      assertPrintable([{ label: `${input.role} name`, text: input.name }]);
      const [{ count = 0, next = 0 } = {}] = await tx
        .select({ count: sql<number>`count(*)::int`, next: sql<number>`coalesce(max(${jobParticipants.position}) + 1, 0)::int` })
        .from(jobParticipants)
        .where(eq(jobParticipants.jobId, jobId));
      if (count >= 10) throw conflict('A job has at most 10 participants.');
      await assertNotaryNotAmong(tx, access.job.notaryId, [input]);
      // After the last one, not at the count: once someone was removed, the count is a position already taken.
      const [row] = await tx
        .insert(jobParticipants)
        .values({ jobId, name: input.name, email: input.email, role: input.role, position: next, invitedAt: new Date() })
        .returning();
      if (!row) throw new Error('participant insert returned no row');
      await queueParticipantInvite(txCtx, access.job, row);
      // A session already announced reaches the newcomer's calendar too (decision 052).
      await queueSessionMailForPerson(
        txCtx,
        { job: access.job, version: access.job.version + 1, person: { kind: 'participant', name: row.name, email: row.email }, change: 'joins' },
        new Date(),
      );
      await appendAuditEvent(txCtx, { jobId, action: 'participant.added', data: { participantId: row.id, name: row.name, email: row.email, role: row.role } });
      return toParticipant(row);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('This person is already on the job.');
    throw error;
  }
}

async function getParticipantRow(db: DbOrTx, jobId: string, participantId: string): Promise<ParticipantRow> {
  const [row] = await db
    .select()
    .from(jobParticipants)
    .where(and(eq(jobParticipants.jobId, jobId), eq(jobParticipants.id, participantId)))
    .limit(1);
  if (!row) throw notFound('No participant with that id on this job.');
  return row;
}

export async function updateParticipant(ctx: Ctx, jobId: string, participantId: string, input: z.output<typeof updateSignerInputSchema>): Promise<Participant> {
  try {
    const updated = await ctx.db.transaction(async (tx) => {
      const txCtx = { ...ctx, db: tx };
      const access = await getJobAccess(txCtx, jobId, { forUpdate: true });
      requirePermission(access, 'canEdit');
      assertEditable(access.job);
      const current = await getParticipantRow(tx, jobId, participantId);
      assertPrintable([{ label: `${input.role ?? current.role} name`, text: input.name }]);
      const isChanged = (Object.keys(input) as Array<keyof typeof input>).some((key) => input[key] !== undefined && input[key] !== current[key]);
      if (isChanged && (await hasFilledFields(tx, { jobId, participantId }))) {
        throw new AppError(
          409,
          'participant_signed',
          `${current.name} has already filled fields on this job, so their name, email and role can no longer change.`,
        );
      }
      const isEmailChanged = input.email !== undefined && input.email !== current.email;
      if (isEmailChanged) await assertNotaryNotAmong(tx, access.job.notaryId, [{ email: input.email ?? current.email }]);
      const [row] = await tx
        .update(jobParticipants)
        .set({ ...input, ...(isEmailChanged ? { userId: null, invitedAt: new Date() } : {}) })
        .where(eq(jobParticipants.id, participantId))
        .returning();
      if (!row) throw notFound('No participant with that id on this job.');
      // Another person, or a name the ID may not carry: the identity proven for the row no longer stands.
      const isPersonChanged = isEmailChanged || (input.name !== undefined && input.name !== current.name);
      if (isPersonChanged) await forgetIdentityOfChangedPerson(txCtx, jobId, current);
      const saved = isPersonChanged ? await getParticipantRow(tx, jobId, participantId) : row;
      if (isEmailChanged) await queueParticipantInvite(txCtx, access.job, saved);
      // Only what really changed, under the name the participant had: "changed Sam Signer’s role to witness".
      const changes = Object.fromEntries(Object.entries(input).filter(([key, value]) => value !== undefined && value !== current[key as keyof typeof input]));
      await appendAuditEvent(txCtx, { jobId, action: 'participant.updated', data: { participantId, name: current.name, changes } });
      return { participant: toParticipant(saved), isEmailChanged };
    });
    // A new address unlinks the account that held the old one: its open channels check again.
    if (updated.isEmailChanged) await announceAccessChange(ctx, jobId);
    return updated.participant;
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('This person is already on the job.');
    throw error;
  }
}

export async function removeParticipant(ctx: Ctx, jobId: string, participantId: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const access = await getJobAccess(txCtx, jobId, { forUpdate: true });
    requirePermission(access, 'canEdit');
    assertEditable(access.job);
    const row = await getParticipantRow(tx, jobId, participantId);
    if (await hasFilledFields(tx, { jobId, participantId })) {
      throw new AppError(409, 'participant_signed', `${row.name} has already filled fields on this job, so they cannot be removed from it.`);
    }
    await tx.delete(jobParticipants).where(eq(jobParticipants.id, participantId));
    // Their copy of an announced session leaves their calendar.
    await queueSessionMailForPerson(
      txCtx,
      { job: access.job, version: access.job.version + 1, person: { kind: 'participant', name: row.name, email: row.email }, change: 'leaves' },
      new Date(),
    );
    await appendAuditEvent(txCtx, { jobId, action: 'participant.removed', data: { participantId, name: row.name, email: row.email, role: row.role } });
  });
  await announceAccessChange(ctx, jobId);
}

/** Sends a participant a fresh invitation link again, at most once every ten minutes each. */
export async function remindParticipant(ctx: Ctx, jobId: string, participantId: string, emailOverride: string | null): Promise<Participant> {
  return ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const access = await getJobAccess(txCtx, jobId, { forUpdate: true });
    requirePermission(access, 'canEdit');
    if (access.job.status === 'completed' || access.job.status === 'cancelled')
      throw conflict(`The job is ${access.job.status}; there is nothing to remind about.`);
    const row = await getParticipantRow(tx, jobId, participantId);
    const lastSent = row.lastRemindedAt ?? row.invitedAt;
    if (lastSent && Date.now() - lastSent.getTime() < reminderCooldownMs) {
      const seconds = Math.ceil((lastSent.getTime() + reminderCooldownMs - Date.now()) / 1000);
      throw new AppError(
        429,
        'reminder_too_soon',
        `${row.name} was emailed less than 10 minutes ago. Try again in ${Math.ceil(seconds / 60)} minutes.`,
        { retryAfterSeconds: seconds },
        { 'retry-after': String(seconds) },
      );
    }
    const [updated] = await tx.update(jobParticipants).set({ lastRemindedAt: new Date() }).where(eq(jobParticipants.id, participantId)).returning();
    await queueParticipantInvite(txCtx, access.job, row, { toAddress: emailOverride ?? undefined, isReminder: true });
    await appendAuditEvent(txCtx, { jobId, action: 'participant.reminded', data: { participantId, name: row.name, sentTo: emailOverride ?? row.email } });
    return toParticipant(updated ?? row);
  });
}

/** Reminds every participant who has not accepted yet and was not emailed in the last ten minutes. */
export async function remindAllParticipants(ctx: Ctx, jobId: string): Promise<{ reminded: number; skipped: number }> {
  return ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const access = await getJobAccess(txCtx, jobId, { forUpdate: true });
    requirePermission(access, 'canEdit');
    if (access.job.status === 'completed' || access.job.status === 'cancelled')
      throw conflict(`The job is ${access.job.status}; there is nothing to remind about.`);
    const rows = await findParticipants(tx, jobId);
    let reminded = 0;
    let skipped = 0;
    for (const row of rows) {
      const lastSent = row.lastRemindedAt ?? row.invitedAt;
      if (row.userId || (lastSent && Date.now() - lastSent.getTime() < reminderCooldownMs)) {
        skipped += 1;
        continue;
      }
      await tx.update(jobParticipants).set({ lastRemindedAt: new Date() }).where(eq(jobParticipants.id, row.id));
      await queueParticipantInvite(txCtx, access.job, row, { isReminder: true });
      reminded += 1;
    }
    await appendAuditEvent(txCtx, { jobId, action: 'participants.reminded', data: { reminded, skipped } });
    return { reminded, skipped };
  });
}

/** Admin or notary only: let a participant skip identity verification, with a reason on record. */
export async function setIdBypass(ctx: Ctx, jobId: string, participantId: string, input: z.output<typeof idBypassInputSchema>): Promise<Participant> {
  return ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const access = await getJobAccess(txCtx, jobId, { forUpdate: true });
    requirePermission(access, 'canBypassId', 'Only an administrator or the job’s notary may bypass identity verification.');
    if (access.job.status === 'completed' || access.job.status === 'cancelled')
      throw conflict(`This job is ${access.job.status}: how each person was identified can no longer change.`);
    const current = await getParticipantRow(tx, jobId, participantId);
    if (input.enabled) assertPrintable([{ label: 'reason', text: input.reason }]);
    const method = input.enabled ? (input.method ?? null) : null;
    // A bypass stands in for the identity step only as another way of identifying the person, one the
    // rules of the notary's commissioning state allow (docs/SECURITY.md).
    if (input.enabled) {
      const policy = await policyOfJob(tx, access.job);
      const allowed = policy.bypassMethods.map((value) => bypassMethodWords[value]).join(' or ');
      if (!method) {
        throw badRequest(
          `Say how you identified ${current.name} instead of the identity step: ${allowed || 'none is allowed'} (the rules of ${policy.name}, ${policy.bypassCitation}).`,
          { policy: policy.code, allowed: policy.bypassMethods },
        );
      }
      if (!policy.bypassMethods.includes(method)) {
        throw badRequest(
          `The rules of ${policy.name} do not allow identification by ${bypassMethodWords[method]} in place of the identity step${allowed ? `; they allow ${allowed}` : ''} (${policy.bypassCitation}).`,
          { method, policy: policy.code, allowed: policy.bypassMethods },
        );
      }
    }
    const [row] = await tx
      .update(jobParticipants)
      .set({ isIdBypassed: input.enabled, idBypassReason: input.enabled ? input.reason : null, idBypassMethod: method })
      .where(eq(jobParticipants.id, participantId))
      .returning();
    if (!row) throw notFound('No participant with that id on this job.');
    await appendAuditEvent(txCtx, {
      jobId,
      action: 'participant.id_bypass_changed',
      data: { participantId, name: current.name, enabled: input.enabled, reason: input.reason, method },
    });
    return toParticipant(row);
  });
}
