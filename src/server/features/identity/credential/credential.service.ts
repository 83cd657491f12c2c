import { eq } from 'drizzle-orm';
import { documentTypeNames, type DocumentType, type IdentityCheck } from '#shared/identity.ts';
import type { IdentityPolicy } from '#shared/identity-policies.ts';
import { identityChecks } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError, conflict } from '#server/lib/errors.ts';
import { encryptSecret } from '#server/lib/secrets.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import type { JobRow } from '#server/features/jobs/job-access.ts';
import { analyseCredentialInPool } from './credential-analysis.ts';
import { attemptsOf, openForOwner, readStatement, requireOpen, settleStatus, toCheck, type AttemptRow } from '../check-rows.ts';
import { checkNotFound, getCheckAccess, requireOwner, type CheckRow } from '../identity-access.ts';
import { maxImagePixels, readImageSize } from './image-limits.ts';
import { saveIdentityImage, sniffImageType, type IdentityImageKind } from '../identity-images.ts';

/** The person's photographs: their ID (read and checked off the main thread) and their face. */

/** A person may send new ID photographs this many times in one check. */
export const maxCredentialAttempts = 10;

export interface CredentialUpload {
  documentType: DocumentType;
  front?: Buffer;
  back?: Buffer;
  passport?: Buffer;
}

const requiredImages: Record<DocumentType, IdentityImageKind[]> = { drivers_license: ['front', 'back'], id_card: ['front', 'back'], passport: ['passport'] };

/** POST /api/identity/{checkId}/credential: the ID's photographs, read and checked; they are kept encrypted. */
/** The checks whose photos this instance is reading now. */
const checksBeingRead = new Set<string>();

export async function submitCredential(ctx: Ctx, checkId: string, resumeToken: string | null, upload: CredentialUpload): Promise<IdentityCheck> {
  const kinds = requiredImages[upload.documentType];
  const images = kinds.map((kind) => ({ kind, content: upload[kind as 'front' | 'back' | 'passport'] }));
  const missing = images.filter((image) => !image.content || image.content.length === 0).map((image) => image.kind);
  if (missing.length > 0) {
    throw new AppError(400, 'missing_images', `Send the ${missing.join(' and ')} of your ${documentTypeNames[upload.documentType].toLowerCase()}.`, {
      missing,
    });
  }
  const typed = images.map((image) => ({ ...image, content: image.content as Buffer, contentType: sniffImageType(image.content as Buffer) }));
  const notImage = typed.filter((image) => !image.contentType).map((image) => image.kind);
  if (notImage.length > 0) throw new AppError(415, 'not_an_image', `The ${notImage.join(' and ')} must be a photo (JPEG, PNG or WebP).`, { kinds: notImage });
  for (const image of typed) await refuseHugeImage(image.kind, image.content);

  // The analysis runs before any transaction and outside any lock: it takes seconds, and on the
  // embedded database an open transaction would hold every other request until it ended.
  const before = await getCheckAccess(ctx, checkId, resumeToken);
  requireOwner(before);
  requireCredentialOpen(before.job, before.check, await attemptsOf(ctx.db, checkId), before.policy, new Date());
  const person = readStatement(ctx, before.check);
  // One set of photos per check at a time: parallel sends would each take a place in the pool's
  // queue, and one person could keep everyone else's ID waiting.
  if (checksBeingRead.has(checkId)) throw conflict('Your photos are being read. Wait for the answer before you send them again.');
  checksBeingRead.add(checkId);
  let reading: Awaited<ReturnType<typeof analyseCredentialInPool>>;
  try {
    reading = await analyseCredentialInPool(
      { documentType: upload.documentType, front: upload.front, back: upload.back, passport: upload.passport },
      { legalName: person.legalName, birthDate: person.birthDate },
      new Date(),
      ctx.config.identity.analysisTimeoutMs,
    );
  } finally {
    checksBeingRead.delete(checkId);
  }

  return ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    // Checked again under the lock: a parallel upload may have passed or used the last attempt meanwhile.
    const access = await openForOwner(txCtx, checkId, resumeToken);
    requireCredentialOpen(access.job, access.check, access.attempts, access.policy, new Date());
    // The reading was made against the statement read before; it stands only if that is unchanged.
    if (access.check.statementSealed !== before.check.statementSealed)
      throw conflict('What you stated about yourself changed while your ID was read. Send the photos again.');
    const now = new Date();
    for (const image of typed)
      await saveIdentityImage({ db: tx, storage: ctx.storage, secretsKey: ctx.secretsKey }, checkId, image.kind, image.content, image.contentType as string);
    const [saved] = await tx
      .update(identityChecks)
      .set({
        credentialStatus: reading.passed ? 'passed' : 'failed',
        documentType: upload.documentType,
        credentialFields: reading.fields,
        credentialChecks: reading.checks,
        documentNumberSealed: reading.documentNumber ? encryptSecret(ctx.secretsKey, reading.documentNumber) : null,
        credentialAttempts: access.check.credentialAttempts + 1,
      })
      .where(eq(identityChecks.id, checkId))
      .returning();
    if (!saved) throw checkNotFound();
    await appendAuditEvent(txCtx, {
      jobId: access.job.id,
      action: 'identity.credential_checked',
      data: {
        checkId,
        name: access.participant.name,
        documentType: upload.documentType,
        passed: reading.passed,
        failedChecks: reading.checks.filter((check) => !check.passed).map((check) => check.id),
      },
    });
    const settled = await settleStatus(tx, saved, access.policy, now);
    return toCheck(tx, access, settled.check, settled.attempts, now);
  });
}

const imageWords: Record<IdentityImageKind, string> = { front: 'front', back: 'back', passport: 'passport', selfie: 'selfie' };

/** Refuses, from its header alone, a photo with more pixels than may be decoded (image-limits.ts). */
async function refuseHugeImage(kind: IdentityImageKind, content: Buffer): Promise<void> {
  const size = await readImageSize(content);
  if (!size || size.width * size.height <= maxImagePixels) return;
  throw new AppError(
    422,
    'image_too_large',
    `The photo of the ${imageWords[kind]} is ${size.width} × ${size.height} pixels; a photo may have at most ${maxImagePixels / 1_000_000} megapixels. Take it again at your camera’s normal size.`,
  );
}

/** A new ID upload is taken while the job and check are open, the ID not yet accepted and attempts are left. */
function requireCredentialOpen(job: JobRow, check: CheckRow, attempts: AttemptRow[], policy: IdentityPolicy, now: Date): void {
  if (job.status === 'completed' || job.status === 'cancelled') throw conflict(`This job is ${job.status}.`);
  requireOpen(check, attempts, policy, now);
  if (check.credentialStatus === 'passed') throw conflict('Your ID was already checked and accepted.');
  if (check.credentialAttempts >= maxCredentialAttempts)
    throw conflict(`You sent photos of your ID ${maxCredentialAttempts} times. Ask the notary about another way to prove your identity.`);
}

/** POST /api/identity/{checkId}/selfie: a photograph of the person's face, for the notary to compare with the ID. */
export async function submitSelfie(ctx: Ctx, checkId: string, resumeToken: string | null, content: Buffer | null): Promise<IdentityCheck> {
  if (!content || content.length === 0) throw new AppError(400, 'missing_images', 'Send a photo of your face.');
  const contentType = sniffImageType(content);
  if (!contentType) throw new AppError(415, 'not_an_image', 'The selfie must be a photo (JPEG, PNG or WebP).');
  return ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const access = await openForOwner(txCtx, checkId, resumeToken);
    const now = new Date();
    await saveIdentityImage({ db: tx, storage: ctx.storage, secretsKey: ctx.secretsKey }, checkId, 'selfie', content, contentType);
    const [saved] = await tx.update(identityChecks).set({ selfieReceivedAt: now }).where(eq(identityChecks.id, checkId)).returning();
    if (!saved) throw checkNotFound();
    await appendAuditEvent(txCtx, { jobId: access.job.id, action: 'identity.selfie_received', data: { checkId, name: access.participant.name } });
    const settled = await settleStatus(tx, saved, access.policy, now);
    return toCheck(tx, access, settled.check, settled.attempts, now);
  });
}
