import { eq } from 'drizzle-orm';
import { isNotaryAmong, notaryConflictMessage } from '#shared/jobs.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { jobParticipants, users } from '#server/db/schema/index.ts';
import { AppError } from '#server/lib/errors.ts';

type Person = { userId?: string | null; email: string };

/** Refuses (409) when the notary is one of these people, by account or by email in any case. */
export async function assertNotaryNotAmong(db: DbOrTx, notaryId: string | null, people: readonly Person[]): Promise<void> {
  if (!notaryId || people.length === 0) return;
  const [notary] = await db.select({ id: users.id, email: users.email }).from(users).where(eq(users.id, notaryId)).limit(1);
  if (notary && isNotaryAmong(notary, people)) throw new AppError(409, 'notary_is_participant', notaryConflictMessage);
}

/** The same check against everyone already on the job. */
export async function assertNotaryNotOnJob(db: DbOrTx, jobId: string, notaryId: string | null): Promise<void> {
  if (!notaryId) return;
  const people = await db
    .select({ userId: jobParticipants.userId, email: jobParticipants.email })
    .from(jobParticipants)
    .where(eq(jobParticipants.jobId, jobId));
  await assertNotaryNotAmong(db, notaryId, people);
}
