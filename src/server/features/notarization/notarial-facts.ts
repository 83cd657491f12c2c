import { noRecordedSessionReason } from '#shared/fields.ts';
import type { Ctx } from '#server/lib/context.ts';
import { judgeJobRecording } from '#server/features/video/recording/recording-rules.ts';
import { findIdentityOutcomes } from '#server/features/identity/identity-evidence.ts';

/**
 * What the platform recorded about a job's act, gathered when the job is sealed. The notarized
 * output states only these facts: an appearance by audio-video only with a recorded session, an
 * identity only with a recorded proofing outcome. Without both, the output says on every page that
 * it is not a notarial act, and /verify says so too (the facts are stored on the output's row).
 */

export interface NotarialFacts {
  /** A recorded audio-video session and every signer's identity proven. */
  isNotarialAct: boolean;
  hasRecordedSession: boolean;
  /** Every signer and witness has a recorded, passed identity proofing outcome. */
  hasProvenIdentity: boolean;
  /** Why it is not a notarial act, in sentences without personal data (shown publicly by /verify). */
  reasons: string[];
}

/** The job's recorded audio-video session: its recordings and stored media (SessionRecord). */
export interface RecordedSession {
  reference: string;
}

/** The recorded result of identity proofing for one participant. */
export interface IdentityOutcome {
  participantId: string;
  isProven: boolean;
  /** How identity was (or failed to be) established, e.g. 'Credential analysis and knowledge-based authentication'. */
  method: string;
}

/** Where the evidence of an act is read from: the session recording and identity proofing capabilities. */
export interface EvidenceReaders {
  findRecordedSession(ctx: Ctx, jobId: string): Promise<RecordedSession | null>;
  findIdentityOutcomes(ctx: Ctx, jobId: string): Promise<IdentityOutcome[]>;
}

/**
 * The session recording is read from the job's recordings and their stored segments
 * (recording-rules.ts); identity from the confirmed checks and the bypasses with a method (identity-evidence.ts).
 */
export const evidenceReaders: EvidenceReaders = {
  findRecordedSession: async (ctx, jobId) => (await judgeJobRecording(ctx.db, jobId, new Date())).record,
  findIdentityOutcomes: async (ctx, jobId) => findIdentityOutcomes(ctx, jobId),
};

export interface ParticipantForFacts {
  id: string;
  role: string;
  isIdBypassed: boolean;
  idBypassReason: string | null;
}

/** Decides from the recorded evidence; observers sign nothing and need no proofing. */
export function judgeNotarialAct(input: { session: RecordedSession | null; outcomes: IdentityOutcome[]; participants: ParticipantForFacts[] }) {
  const signers = input.participants.filter((participant) => participant.role !== 'observer');
  const outcomeOf = (participantId: string) => input.outcomes.find((outcome) => outcome.participantId === participantId);
  const unproven = signers.filter((participant) => !outcomeOf(participant.id)?.isProven);
  const hasRecordedSession = input.session !== null;
  const hasProvenIdentity = signers.length > 0 && unproven.length === 0;
  const reasons: string[] = [];
  if (!hasRecordedSession) reasons.push(noRecordedSessionReason);
  if (signers.length === 0) reasons.push('No signer took part.');
  else if (unproven.length === signers.length) reasons.push('No signer’s identity was proven.');
  else if (unproven.length > 0) reasons.push(`The identity of ${unproven.length} of ${signers.length} signers was not proven.`);
  const facts: NotarialFacts = { isNotarialAct: hasRecordedSession && hasProvenIdentity, hasRecordedSession, hasProvenIdentity, reasons };
  return {
    facts,
    recordingReference: input.session?.reference ?? null,
    /** What the audit certificate says about one participant's identity. */
    identityOf(participantId: string): string {
      const outcome = outcomeOf(participantId);
      if (outcome?.isProven) return outcome.method;
      if (outcome) return `Not proven: ${outcome.method}`;
      const participant = input.participants.find((candidate) => candidate.id === participantId);
      if (participant?.isIdBypassed) return `Not proven: identity verification bypassed by the notary (${participant.idBypassReason ?? 'no reason given'})`;
      return 'Not proven: no identity proofing outcome is recorded';
    },
  };
}

/** Reads the job's recorded evidence and judges it. */
export async function gatherNotarialFacts(ctx: Ctx, jobId: string, participants: ParticipantForFacts[], readers: EvidenceReaders = evidenceReaders) {
  const [session, outcomes] = [await readers.findRecordedSession(ctx, jobId), await readers.findIdentityOutcomes(ctx, jobId)];
  return judgeNotarialAct({ session, outcomes, participants });
}
