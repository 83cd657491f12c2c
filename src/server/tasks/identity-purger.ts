import { and, eq, isNull, lte } from 'drizzle-orm';
import { identityChecks, identityKbaAttempts, jobParticipants } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { purgeIdentityImages } from '#server/features/identity/identity-images.ts';

/**
 * Deletes the evidence of every check whose retention ended by `now` (the policy's retentionYears
 * from its start): the ID photographs and selfie (blob and key), what the person stated, what was
 * read from the ID and its number. The outcome stays (status, decision, scores): the journal's.
 */
export async function purgeExpiredIdentityEvidence(deps: Pick<Ctx, 'db' | 'storage' | 'secretsKey'>, now: Date): Promise<number> {
  const due = await deps.db
    .select({ id: identityChecks.id, jobId: identityChecks.jobId, participantId: identityChecks.jobParticipantId })
    .from(identityChecks)
    .where(and(lte(identityChecks.purgeAfter, now), isNull(identityChecks.purgedAt)));
  for (const row of due) {
    await deps.db.transaction(async (tx) => {
      const images = await purgeIdentityImages({ db: tx, storage: deps.storage, secretsKey: deps.secretsKey }, row.id, now);
      await tx
        .update(identityChecks)
        .set({ statementSealed: '', credentialFields: null, documentNumberSealed: null, resumeTokenHash: null, resumeExpiresAt: null, purgedAt: now })
        .where(eq(identityChecks.id, row.id));
      await tx.update(identityKbaAttempts).set({ quiz: null }).where(eq(identityKbaAttempts.checkId, row.id));
      const [person] = await tx.select({ name: jobParticipants.name }).from(jobParticipants).where(eq(jobParticipants.id, row.participantId)).limit(1);
      await appendAuditEvent(
        { db: tx, user: null, ipAddress: 'identity-purge', userAgent: null },
        { jobId: row.jobId, action: 'identity.purged', data: { checkId: row.id, name: person?.name ?? null, images } },
      );
    });
  }
  return due.length;
}

/** Runs the purge now and then every `everyMs` (an hour by default) until stopped. */
export function startIdentityPurger(
  deps: Pick<Ctx, 'db' | 'storage' | 'secretsKey'> & { log: { error(object: unknown, message: string): void } },
  everyMs = 3600_000,
): () => void {
  const run = () =>
    void purgeExpiredIdentityEvidence(deps, new Date()).catch((error: unknown) =>
      deps.log.error({ err: error }, 'Purging identity evidence past its retention failed.'),
    );
  const timer = setInterval(run, everyMs);
  timer.unref();
  run();
  return () => clearInterval(timer);
}
