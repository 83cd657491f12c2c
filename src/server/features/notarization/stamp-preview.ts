import { and, asc, eq, isNotNull } from 'drizzle-orm';
import type { NotaryStamp } from '#shared/fields.ts';
import { notarizationTypes } from '#shared/jobs.ts';
import { documentFields, jobParticipants, notaryProfiles, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import type { JobRow } from '#server/features/jobs/job-access.ts';
import { getCertificateBlockText, getStateName } from './certificate-wording.ts';
import { gatherNotarialFacts } from './notarial-facts.ts';

/**
 * What the notary's seal and certificate fields will print if the job were sealed now, so the
 * workspace shows it instead of a placeholder. The wording follows the same recorded facts as the
 * sealed output (decision 007). Null while the job has no notary with a commission on file.
 */
export async function getNotaryStampPreview(ctx: Ctx, job: JobRow): Promise<NotaryStamp | null> {
  if (!job.notaryId) return null;
  const [notary] = await ctx.db
    .select({ name: users.name, profile: notaryProfiles })
    .from(users)
    .innerJoin(notaryProfiles, eq(notaryProfiles.userId, users.id))
    .where(eq(users.id, job.notaryId))
    .limit(1);
  if (!notary) return null;
  const participants = await ctx.db.select().from(jobParticipants).where(eq(jobParticipants.jobId, job.id)).orderBy(asc(jobParticipants.position));
  const recorded = await gatherNotarialFacts(ctx, job.id, participants);
  const signers = participants.filter((participant) => participant.role !== 'observer');
  const filled = await ctx.db
    .selectDistinct({ participantId: documentFields.participantId })
    .from(documentFields)
    .where(and(eq(documentFields.jobId, job.id), isNotNull(documentFields.filledAt)));
  const signed = signers.filter((signer) => filled.some((field) => field.participantId === signer.id));
  const act = notarizationTypes.find((type) => type.key === job.notarizationType) ?? notarizationTypes[0];
  const { profile } = notary;
  const certificateText = getCertificateBlockText({
    actKey: act.key,
    actLabel: act.label,
    notaryName: notary.name,
    commissionNumber: profile.commissionNumber,
    commissionState: profile.commissionState,
    county: profile.county,
    commissionExpiresOn: profile.commissionExpiresOn,
    notarizedAt: new Date(),
    signerNames: (recorded.facts.isNotarialAct ? signers : signed).map((signer) => signer.name),
    notarialFacts: recorded.facts,
    verification: { id: '', url: '' },
  });
  return {
    notaryName: notary.name,
    commissionState: profile.commissionState,
    stateName: getStateName(profile.commissionState),
    county: profile.county,
    commissionNumber: profile.commissionNumber,
    commissionExpiresOn: profile.commissionExpiresOn,
    certificateText,
  };
}
