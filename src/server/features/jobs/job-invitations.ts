import { and, desc, eq, inArray, isNotNull, isNull, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '#server/db/client.ts';
import { jobParticipants, jobs, users } from '#server/db/schema/index.ts';
import type { JobRow, ParticipantRow } from './job-access.ts';

/** Statuses in which an invitation can still be accepted. */
export const invitableStatuses = ['draft', 'ready', 'scheduled', 'in_session'] as const;

/**
 * An open job invited the user's email address and that participant is not linked to any account
 * yet, and the user confirmed the address. The address and its confirmation are read from the users
 * row, never from the session, so an unconfirmed account can never match (decision 010). Written
 * over job_participants, users and jobs joined.
 */
function invitationMatch(userId: string): SQL {
  const match = and(
    eq(users.id, userId),
    isNotNull(users.emailVerifiedAt),
    eq(jobParticipants.email, users.email),
    isNull(jobParticipants.userId),
    eq(jobs.id, jobParticipants.jobId),
    inArray(jobs.status, [...invitableStatuses]),
  );
  if (!match) throw new Error('invitation match is empty');
  return match;
}

/** The ids of the jobs inviting the user by confirmed email, as a subquery for the jobs list. */
export function invitedJobIds(userId: string): SQL {
  return sql`select ${jobParticipants.jobId} from ${jobParticipants}, ${users}, ${jobs} where ${invitationMatch(userId)}`;
}

export interface EmailInvitation {
  job: JobRow;
  participant: ParticipantRow;
}

/** The open invitations to the user's confirmed address, newest job activity first (at most 50). */
export async function findEmailInvitations(db: DbOrTx, userId: string, options: { jobId?: string; forUpdate?: boolean } = {}): Promise<EmailInvitation[]> {
  const query = db
    .select({ job: jobs, participant: jobParticipants })
    .from(jobParticipants)
    .innerJoin(jobs, eq(jobs.id, jobParticipants.jobId))
    .innerJoin(users, eq(users.email, jobParticipants.email))
    .where(and(invitationMatch(userId), options.jobId ? eq(jobs.id, options.jobId) : undefined))
    .orderBy(desc(jobs.updatedAt))
    .limit(50);
  return options.forUpdate ? query.for('update', { of: [jobParticipants] }) : query;
}
