import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { and, asc, eq, inArray } from 'drizzle-orm';
import { formatFieldValue } from '#shared/dates.ts';
import { getOutputFileName } from '#shared/fields.ts';
import { notarizationTypes } from '#shared/jobs.ts';
import {
  auditEvents,
  documentFields,
  documents,
  jobParticipants,
  jobs,
  notarizedDocuments,
  notaryProfiles,
  signingCredentials,
  userSignatures,
  users,
} from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError, conflict, forbidden, notFound } from '#server/lib/errors.ts';
import { findNotarialFeePerAct, recordJobCharges } from '#server/features/pricing/job-charges.service.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { queueWebhookEvent } from '#server/features/integrations/webhook-events.ts';
import { settlePaymentOfCompletedJob } from '#server/features/payments/payments.service.ts';
import { publishJobChange } from '#server/features/fields/fields.service.ts';
import { getJobAccess } from '#server/features/jobs/job-access.ts';
import { queueJobCompletedMail } from '#server/features/jobs/job-mail.ts';
import { assertNotaryNotOnJob } from '#server/features/jobs/notary-conflict.ts';
import { assertNotaryMaySeal } from '#server/features/notaries/notary-eligibility.ts';
import { getOrIssueNotaryCredentials, lockNotaryCredentials } from '#server/providers/signing/certificates.ts';
import { DocumentStructureError } from '#server/providers/signing/incremental.ts';
import { signPreparedPdf, type SignatureInfo } from '#server/providers/signing/pades.ts';
import { policyFor } from '#shared/identity-policies.ts';
import { describeBlockingInterruptions } from '#server/features/video/recording/recording-gaps.ts';
import { judgeJobRecording } from '#server/features/video/recording/recording-rules.ts';
import { evidenceReaders, gatherNotarialFacts } from './notarial-facts.ts';
import {
  findIdentityEvidence,
  findIdentityOutcomes,
  findStatedAddress,
  findUnprovenPeople,
  type IdentityEvidence,
} from '#server/features/identity/identity-evidence.ts';
import { describeUnprintableText } from './pdf-fonts.ts';
import { extendToLongTerm, type PadesLevel } from './long-term.ts';
import type { FieldToBurn } from './render.ts';
import { renderInPool } from './seal-pool.ts';

export { getNotaryStampPreview } from './stamp-preview.ts';
export { describeUnprintableText } from './pdf-fonts.ts';

export type NotarizedRow = typeof notarizedDocuments.$inferSelect;

export interface PublicFacts {
  actKey: string;
  actLabel: string;
  notaryName: string;
  commissionState: string;
  commissionNumber: string;
  commissionExpiresOn: string;
  county: string;
  notarizedAt: string;
}

/** The output as its job's pages list it; `originalName` is the uploaded document's name. */
function toNotarized(row: NotarizedRow, originalName: string) {
  return {
    id: row.id,
    documentId: row.documentId,
    name: getOutputFileName(originalName, row.isNotarialAct),
    sha256: row.sha256,
    sizeBytes: row.sizeBytes,
    pageCount: row.pageCount,
    createdAt: row.createdAt.toISOString(),
    downloadUrl: `/api/jobs/${row.jobId}/notarized/${row.id}/file`,
    isNotarialAct: row.isNotarialAct,
    notNotarialReasons: row.notNotarialReasons,
  };
}

/**
 * Seals the job: for every signing document, burns the filled fields, adds the notarial
 * certificate and the audit certificate page, then signs with the notary's certificate as the
 * very last step. The originals stay as they are; the results are new files. Heavy work runs
 * before the one short transaction that records them and completes the job.
 */
export async function completeJob(ctx: Ctx, jobId: string) {
  const access = await getJobAccess(ctx, jobId);
  const { job } = access;
  if (job.notaryId !== access.userId) throw forbidden('Only the job’s notary seals and completes it.');
  if (job.status !== 'in_session') throw new AppError(409, 'invalid_transition', 'Only a job in session can be completed.');
  await assertNotaryNotOnJob(ctx.db, jobId, job.notaryId);
  await assertNotaryMaySeal(ctx.db, job.notaryId);
  const signingDocuments = await ctx.db
    .select()
    .from(documents)
    .where(and(eq(documents.jobId, jobId), eq(documents.tag, 'signing')))
    .orderBy(asc(documents.position));
  if (signingDocuments.length === 0) throw conflict('The job has no signing documents.');
  const unfinished = signingDocuments.filter((document) => document.status !== 'completed');
  if (unfinished.length > 0) {
    throw conflict(`Complete every document first: ${unfinished.map((document) => document.name).join(', ')}.`, { documentIds: unfinished.map((d) => d.id) });
  }
  // The act rests on its recording: every fill inside a recording that stored media (decision 022).
  const notarizedAt = new Date();
  const recording = await judgeJobRecording(ctx.db, jobId, notarizedAt);
  if (recording.refusal) throw new AppError(409, 'not_recorded', `${recording.refusal} The job cannot be sealed.`);
  const [notary] = await ctx.db
    .select({ user: users, profile: notaryProfiles })
    .from(users)
    .innerJoin(notaryProfiles, eq(notaryProfiles.userId, users.id))
    .where(eq(users.id, access.userId))
    .limit(1);
  if (!notary) throw conflict('Your notary commission details are missing; they are needed for the certificate.');
  // Nobody the act needs may have been out of the recorded call longer than the commission state's rule allows (decision 033).
  const interrupted = recording.record
    ? describeBlockingInterruptions(recording.record.people, policyFor(notary.profile.commissionState).recordingInterruption)
    : null;
  if (interrupted) throw new AppError(409, 'recording_interrupted', interrupted);
  // Nobody signs under a notary's seal whose identity was neither confirmed by the notary nor established another lawful way.
  const unproven = await findUnprovenPeople(ctx, job);
  if (unproven.length > 0) {
    throw new AppError(
      409,
      'identity_not_proven',
      `Confirm the identity of ${unproven.join(', ')} first (or record how you know them). The job cannot be sealed.`,
      { names: unproven },
    );
  }
  const act = notarizationTypes.find((type) => type.key === job.notarizationType) ?? notarizationTypes[0];
  const credentials = await getOrIssueNotaryCredentials(ctx.db, ctx.secretsKey, {
    userId: notary.user.id,
    name: notary.user.name,
    email: notary.user.email,
    commissionState: notary.profile.commissionState,
    commissionNumber: notary.profile.commissionNumber,
    commissionExpiresOn: notary.profile.commissionExpiresOn,
  });
  const participants = await ctx.db.select().from(jobParticipants).where(eq(jobParticipants.jobId, jobId)).orderBy(asc(jobParticipants.position));
  // What was recorded decides what the output may say (a session, each signer's identity).
  const recorded = await gatherNotarialFacts(ctx, jobId, participants, { ...evidenceReaders, findRecordedSession: async () => recording.record });
  const fields = await ctx.db.select().from(documentFields).where(eq(documentFields.jobId, jobId));
  const signatureIds = [...new Set(fields.map((field) => field.signatureId).filter((id): id is string => id !== null))];
  const signatures = signatureIds.length ? await ctx.db.select().from(userSignatures).where(inArray(userSignatures.id, signatureIds)) : [];
  const images = new Map<string, Buffer>();
  for (const signature of signatures) images.set(signature.id, await ctx.storage.read(signature.storageKey));
  const trail = await ctx.db
    .select({ event: auditEvents, actor: users.name })
    .from(auditEvents)
    .leftJoin(users, eq(users.id, auditEvents.actorId))
    .where(eq(auditEvents.scope, `job:${jobId}`))
    .orderBy(asc(auditEvents.sequence));
  const facts: PublicFacts = {
    actKey: act.key,
    actLabel: act.label,
    notaryName: notary.user.name,
    commissionState: notary.profile.commissionState,
    commissionNumber: notary.profile.commissionNumber,
    commissionExpiresOn: notary.profile.commissionExpiresOn,
    county: notary.profile.county,
    notarizedAt: notarizedAt.toISOString(),
  };
  const signerFacts = participants
    .filter((participant) => participant.role !== 'observer')
    .map((participant) => {
      const filled = fields.filter((field) => field.participantId === participant.id && field.filledAt).map((field) => field.filledAt as Date);
      return {
        participantId: participant.id,
        name: participant.name,
        role: participant.role,
        signedAt: filled.length ? new Date(Math.max(...filled.map((date) => date.getTime()))) : null,
        identityMethod: recorded.identityOf(participant.id),
      };
    });

  // Nothing is sealed with a character no font of the record can print: refused here, with the text that holds it, never printed as '?'.
  const unprintable = describeUnprintableText(
    [
      { label: 'job title', text: job.title },
      ...signingDocuments.map((document) => ({ label: 'document name', text: document.name })),
      { label: 'notary name', text: notary.user.name },
      { label: 'county of the commission', text: notary.profile.county },
      { label: 'commission number', text: notary.profile.commissionNumber },
      ...signerFacts.flatMap((signer) => [
        { label: `${signer.role} name`, text: signer.name },
        { label: `identity line of ${signer.name}`, text: signer.identityMethod },
      ]),
      ...fields
        .filter((field) => field.filledAt)
        .map((field) => ({ label: `${field.type.replace(/_/g, ' ')} field`, text: formatFieldValue(field, notary.profile.commissionState) })),
      // The audit trail is history and cannot be corrected: text that reached it before names were
      // checked where they are typed prints its uncovered characters as their code points ([U+1F0A1]).
    ],
    'the notarized record',
  );
  if (unprintable) throw new AppError(409, 'unprintable_text', `${unprintable} Correct it, then seal again.`);

  // The time-stamping authority is the one party outside the platform a seal waits on (third parties' OCSP and CRLs end
  // as sentences): when it fails, for the signature's timestamp or the archive timestamp, nothing is sealed and the notary is told.
  const toTimestampUnavailable = (error: unknown): unknown => {
    if (!ctx.config.tsaUrl || !/timestamp authority|timestamp token|fetch failed|TimeoutError|aborted/i.test(String(error))) return error;
    ctx.log.error({ err: error, jobId }, 'the timestamp authority could not be had');
    return new AppError(
      502,
      'timestamp_unavailable',
      'The time-stamping authority did not answer, so the seal could not be completed and nothing was sealed. Try again in a few minutes.',
    );
  };
  // A document whose own bytes the seal cannot write (decision 064): said with its name, not a 500.
  // Drawing over the original fails only for its bytes; signing and extending it, only where its structure is at fault.
  const toUnsealable = (documentName: string, error: unknown, isDocumentsFault = !(error instanceof AppError)): unknown => {
    if (!isDocumentsFault) return error;
    ctx.log.error({ err: error, jobId, documentName }, 'a document could not be sealed');
    return new AppError(
      422,
      'unsealable_pdf',
      `“${documentName}” could not be sealed: its PDF is built in a way the seal cannot write, so nothing was sealed. Upload it again saved from a PDF viewer (for example with Print to PDF) on a new job, and sign it there.`,
    );
  };
  const temporaryDirectory = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'ron-notarize-'));
  const outputs: Array<{
    id: string;
    documentId: string;
    name: string;
    sha256: string;
    sizeBytes: number;
    pageCount: number;
    padesLevel: PadesLevel;
    validationDataMissing: string[];
    revocationNotPublished: string[];
    archiveTimestampExpiresAt: Date | null;
    fullSaveReason: string | null;
  }> = [];
  try {
    for (const document of signingDocuments) {
      const original = await ctx.storage.read(document.storageKey);
      const toBurn: FieldToBurn[] = fields
        .filter((field) => field.documentId === document.id && field.filledAt)
        .flatMap((field) => (field.isOnEveryPage ? Array.from({ length: document.pageCount }, (_, index) => ({ ...field, page: index + 1 })) : [field]))
        .map((field) => ({
          type: field.type,
          page: field.page,
          x: field.x,
          y: field.y,
          width: field.width,
          height: field.height,
          // A date is printed the way the notary's commission state writes dates (us-states.ts).
          value: formatFieldValue(field, notary.profile.commissionState),
          imagePng: field.signatureId ? (images.get(field.signatureId) ?? null) : null,
        }));
      // The output's id is chosen now so that its certificate page can name it and its /verify address.
      const notarizedId = randomUUID();
      // Without a session nobody "appeared": the certificate names those who signed this document.
      const signedHere = signerFacts.filter((signer) =>
        fields.some((field) => field.documentId === document.id && field.participantId === signer.participantId && field.filledAt),
      );
      const signature: SignatureInfo = {
        reason: recorded.facts.isNotarialAct
          ? `${act.label} (remote online notarization)`
          : `Electronic signing record, not a notarial act (${act.label} requested)`,
        location: `${notary.profile.county}, ${notary.profile.commissionState}`,
        name: notary.user.name,
        contactInfo: notary.user.email,
        timestampUrl: ctx.config.tsaUrl,
      };
      // One save, in a thread of the seal pool (decision 070): the signature's placeholder goes in before
      // it, the signature itself after it (last), here, where the notary's key is.
      const rendered = await renderInPool({
        placeholder: { certificates: { certificatePem: credentials.certificatePem, chainPems: credentials.chainPems }, info: signature },
        original,
        fields: toBurn,
        certificate: {
          ...facts,
          actKey: act.key,
          actLabel: act.label,
          notarizedAt,
          signerNames: (recorded.facts.isNotarialAct ? signerFacts : signedHere).map((signer) => signer.name),
          notarialFacts: recorded.facts,
          verification: { id: notarizedId, url: `${ctx.config.publicUrl}/verify?id=${notarizedId}` },
        },
        audit: {
          jobId,
          jobTitle: job.title,
          documentName: document.name,
          originalSha256: document.sha256,
          signers: signerFacts,
          recordingReference: recorded.recordingReference,
          recording: recording.record,
          events: trail.map(({ event, actor }) => ({
            at: event.createdAt,
            action: event.action,
            actorName: actor,
            actorId: event.actorId,
            data: (event.data ?? {}) as Record<string, unknown>,
          })),
        },
      }).catch((error: unknown) => {
        throw toUnsealable(document.name, error);
      });
      const signed = await signPreparedPdf(rendered.pdf, credentials, signature, rendered.mark).catch((error: unknown) => {
        throw toUnsealable(document.name, toTimestampUnavailable(error), error instanceof DocumentStructureError);
      });
      // PAdES B-LT (B-LTA with a TSA): the chain's validation data and an archive timestamp go in as
      // incremental revisions after the signature, so the seal still checks out once its certificate
      // has expired or been revoked (decision 058).
      const longTerm = await extendToLongTerm({ db: ctx.db, secretsKey: ctx.secretsKey, tsaUrl: ctx.config.tsaUrl }, signed, [
        credentials.certificatePem,
        ...credentials.chainPems,
      ]).catch((error: unknown) => {
        throw toUnsealable(document.name, toTimestampUnavailable(error), error instanceof DocumentStructureError);
      });
      const sha256 = createHash('sha256').update(longTerm.pdf).digest('hex');
      const filePath = path.join(temporaryDirectory, `${sha256}.pdf`);
      await fs.promises.writeFile(filePath, longTerm.pdf);
      await ctx.storage.putFile(filePath, sha256, 'application/pdf');
      outputs.push({
        id: notarizedId,
        documentId: document.id,
        name: document.name,
        sha256,
        sizeBytes: longTerm.pdf.length,
        pageCount: rendered.pageCount,
        padesLevel: longTerm.level,
        validationDataMissing: longTerm.missing,
        revocationNotPublished: longTerm.unpublished,
        archiveTimestampExpiresAt: longTerm.archiveTimestampExpiresAt,
        fullSaveReason: rendered.fullSaveReason,
      });
    }
  } finally {
    await fs.promises.rm(temporaryDirectory, { recursive: true, force: true });
  }

  const rows = await ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const locked = await getJobAccess(txCtx, jobId, { forUpdate: true });
    if (locked.job.status !== 'in_session') throw new AppError(409, 'invalid_transition', 'The job is no longer in session.');
    // Signing took a while: a certificate revoked (or an upload replaced) meanwhile seals nothing. Under
    // the credentials' lock, so a revocation is either before this check or after the act is stored.
    await lockNotaryCredentials(tx, access.userId);
    const [credential] = await tx
      .select({ revokedAt: signingCredentials.revokedAt })
      .from(signingCredentials)
      .where(eq(signingCredentials.id, credentials.credentialId))
      .limit(1);
    if (!credential || credential.revokedAt) {
      throw new AppError(
        409,
        'certificate_revoked',
        'Your signing certificate was revoked while this job was being sealed, so nothing was sealed. Seal it again: it is signed with a new certificate.',
      );
    }
    const inserted: Array<{ row: NotarizedRow; name: string }> = [];
    for (const output of outputs) {
      const [row] = await tx
        .insert(notarizedDocuments)
        .values({
          id: output.id,
          jobId,
          documentId: output.documentId,
          storageKey: output.sha256,
          sha256: output.sha256,
          sizeBytes: output.sizeBytes,
          pageCount: output.pageCount,
          notaryId: access.userId,
          credentialId: credentials.credentialId,
          publicFacts: facts,
          isNotarialAct: recorded.facts.isNotarialAct,
          hasRecordedSession: recorded.facts.hasRecordedSession,
          hasProvenIdentity: recorded.facts.hasProvenIdentity,
          notNotarialReasons: recorded.facts.reasons,
          padesLevel: output.padesLevel,
          archiveTimestampExpiresAt: output.archiveTimestampExpiresAt,
        })
        .returning();
      if (!row) throw new Error('notarized insert returned no row');
      inserted.push({ row, name: output.name });
      await appendAuditEvent(txCtx, {
        jobId,
        action: 'document.notarized',
        data: {
          documentId: output.documentId,
          documentName: output.name,
          notarizedDocumentId: row.id,
          sha256: output.sha256,
          certificateSerial: credentials.serialNumber,
          isNotarialAct: recorded.facts.isNotarialAct,
          notNotarialReasons: recorded.facts.reasons,
          padesLevel: output.padesLevel,
          ...(output.validationDataMissing.length > 0 ? { validationDataMissing: output.validationDataMissing } : {}),
          ...(output.revocationNotPublished.length > 0 ? { revocationNotPublished: output.revocationNotPublished } : {}),
          ...(output.archiveTimestampExpiresAt ? { archiveTimestampExpiresAt: output.archiveTimestampExpiresAt.toISOString() } : {}),
          // The seal is appended to the original; a damaged original is saved again as a whole, and this says why.
          ...(output.fullSaveReason ? { fullSaveReason: output.fullSaveReason } : {}),
        },
      });
      await queueWebhookEvent(tx, locked.job.companyId, 'document.notarized', {
        jobId,
        documentId: output.documentId,
        notarizedDocumentId: row.id,
        sha256: output.sha256,
        isNotarialAct: recorded.facts.isNotarialAct,
        notarizedAt: row.createdAt.toISOString(),
      });
    }
    await tx
      .update(jobs)
      .set({ status: 'completed', version: locked.job.version + 1, updatedAt: new Date() })
      .where(eq(jobs.id, jobId));
    await appendAuditEvent(txCtx, {
      jobId,
      action: 'job.status_changed',
      data: { from: 'in_session', to: 'completed', reason: 'notarized and digitally signed' },
    });
    await queueWebhookEvent(tx, locked.job.companyId, 'job.completed', { jobId, status: 'completed', completedAt: new Date().toISOString() });
    // Charged once, at the prices of this moment (decision 048); an output that is no notarial act carries no notarial fee.
    await recordJobCharges(txCtx, locked.job, recorded.facts.isNotarialAct ? outputs.length : 0);
    // The signers and the title company are told in the transaction that completes the job.
    await queueJobCompletedMail(txCtx, locked.job);
    return inserted;
  });
  await publishJobChange(ctx, jobId, { type: 'job.changed' });
  // Only now, the completion committed, is the held amount captured for the charges just recorded
  // (decision 050): no call to a payment provider inside a transaction, and a failure never undoes the act.
  await settlePaymentOfCompletedJob(ctx, jobId);
  return { items: rows.map(({ row, name }) => toNotarized(row, name)) };
}

export async function findNotarizedDocuments(ctx: Ctx, jobId: string) {
  await getJobAccess(ctx, jobId);
  const rows = await ctx.db
    .select({ row: notarizedDocuments, name: documents.name })
    .from(notarizedDocuments)
    .innerJoin(documents, eq(documents.id, notarizedDocuments.documentId))
    .where(eq(notarizedDocuments.jobId, jobId))
    .orderBy(asc(documents.position));
  return { items: rows.map(({ row, name }) => toNotarized(row, name)) };
}

export async function openNotarizedFile(ctx: Ctx, jobId: string, notarizedId: string) {
  await getJobAccess(ctx, jobId);
  const [row] = await ctx.db
    .select({ row: notarizedDocuments, name: documents.name })
    .from(notarizedDocuments)
    .innerJoin(documents, eq(documents.id, notarizedDocuments.documentId))
    .where(and(eq(notarizedDocuments.jobId, jobId), eq(notarizedDocuments.id, notarizedId)))
    .limit(1);
  if (!row) throw notFound('No notarized document with that id on this job.');
  return { stream: await ctx.storage.openStream(row.row.storageKey), sizeBytes: row.row.sizeBytes, name: getOutputFileName(row.name, row.row.isNotarialAct) };
}

/**
 * The journal entries this job needs, one per signer and signing document, computed from what the
 * platform recorded (POST /api/jobs/:id/prepare-notary-log): the act, the document, each signer's name, the
 * address they stated in their identity step, the proofing outcome and the ID presented, the job's
 * witnesses, the recording, the notarial fee charged for the act. The journal service stores them as
 * drafts (storeJournalDrafts); the document's type and date and anything else only the notary knows
 * are added at finalize.
 */
export async function prepareNotaryLog(ctx: Ctx, jobId: string) {
  const access = await getJobAccess(ctx, jobId);
  if (access.job.notaryId !== access.userId && !ctx.user?.roles.includes('admin')) throw forbidden('Only the job’s notary prepares its journal entries.');
  const act = notarizationTypes.find((type) => type.key === access.job.notarizationType);
  const participants = await ctx.db.select().from(jobParticipants).where(eq(jobParticipants.jobId, jobId)).orderBy(asc(jobParticipants.position));
  const jobDocuments = await ctx.db
    .select()
    .from(documents)
    .where(and(eq(documents.jobId, jobId), eq(documents.tag, 'signing')))
    .orderBy(asc(documents.position));
  const notarized = await ctx.db.select().from(notarizedDocuments).where(eq(notarizedDocuments.jobId, jobId));
  // Identity as it stood when the act was sealed (a session's end later ends the checks themselves).
  const sealedAt = notarized.map((row) => row.createdAt).sort((a, b) => a.getTime() - b.getTime())[0] ?? new Date();
  const outcomes = await findIdentityOutcomes(ctx, jobId, sealedAt);
  const recorded = await gatherNotarialFacts(ctx, jobId, participants, { ...evidenceReaders, findIdentityOutcomes: async () => outcomes });
  const signers = participants.filter((participant) => participant.role === 'signer');
  const witnesses = participants
    .filter((participant) => participant.role === 'witness')
    .map((participant) => ({ name: participant.name, identityMethod: recorded.identityOf(participant.id) }));
  const evidence = new Map<string, IdentityEvidence | null>();
  const addresses = new Map<string, string | null>();
  for (const signer of signers) {
    evidence.set(signer.id, await findIdentityEvidence(ctx, access.job, signer.id, sealedAt));
    addresses.set(signer.id, await findStatedAddress(ctx, access.job, signer.id, sealedAt));
  }
  // The notarial fee charged for each document's act at completion (decision 048); none recorded, the notary enters it.
  const feeOfAct = await findNotarialFeePerAct(ctx.db, jobId);
  const sealedDocumentIds = jobDocuments.filter((document) => notarized.some((row) => row.documentId === document.id)).map((document) => document.id);
  const entries = signers.flatMap((participant) => {
    const isIdentifiedByCredibleWitness = participant.isIdBypassed && participant.idBypassMethod === 'credible_witness';
    return jobDocuments.map((document) => ({
      jobId,
      documentId: document.id,
      participantId: participant.id,
      documentName: document.name,
      actType: act?.label ?? access.job.notarizationType,
      signerName: participant.name,
      signerEmail: participant.email,
      signerAddress: addresses.get(participant.id) ?? null,
      identityMethod: recorded.identityOf(participant.id),
      isIdentityProven: outcomes.some((outcome) => outcome.participantId === participant.id && outcome.isProven),
      identityEvidence: evidence.get(participant.id) ?? null,
      isIdentifiedByCredibleWitness,
      // The job's witnesses are who vouched, as far as the platform knows; the notary adds their addresses.
      credibleWitnesses: isIdentifiedByCredibleWitness ? witnesses.map((witness) => ({ name: witness.name, address: null })) : [],
      witnesses,
      notarizedAt: notarized.find((row) => row.documentId === document.id)?.createdAt.toISOString() ?? null,
      notarizedSha256: notarized.find((row) => row.documentId === document.id)?.sha256 ?? null,
      recordingReference: recorded.recordingReference,
      feeCents: feeOfAct(sealedDocumentIds.indexOf(document.id)),
    }));
  });
  return { entries };
}
