/**
 * Each state's identity-proofing rules for a remote online notarization, as data (decision 025).
 * A state is a row: a new state is a new row with its citations, never a branch in code. The job's
 * notary's commissioning state picks the row; a state without a row gets the RULONA default.
 * Every figure carries the citation it comes from; a rule whose source is not recorded here is not
 * claimed.
 */
export interface KbaRule {
  /** At least this many questions per quiz. */
  questionCount: number;
  /** At least this many answer choices per question. */
  choicesPerQuestion: number;
  /** Share of questions answered correctly to pass, in percent. */
  passPercent: number;
  /** Every question answered within this many seconds of the quiz being shown. */
  timeLimitSeconds: number;
  /** Attempts after the first failed one. */
  retakes: number;
  /** The retakes must start within this many hours of the first failed attempt. */
  retakeWindowHours: number;
  /** On a retake, at least this share of the previous quiz's questions is new, in percent. */
  minReplacedPercent: number;
  /** After the last failed attempt, no new quiz for this many hours (with the same notary). */
  lockoutHours: number;
  citation: string;
}

/**
 * How long the notary or a signer may be out of the recorded call (left it, lost the connection)
 * before the act cannot be sealed (decision 033). No state in this table gives a number of seconds:
 * each requires the session to be recorded, and the number is this platform's rule.
 */
export interface InterruptionRule {
  /** A stretch longer than this without the person's media recorded blocks the seal. */
  maxSeconds: number;
  /** True when maxSeconds is the platform's rule because the state sets no number. */
  isPlatformRule: boolean;
  /** What the state requires of the recording, as a sentence with its subject ("Texas requires …"). */
  requirement: string;
  citation: string;
}

export interface IdentityPolicy {
  /** Two-letter state code, or 'RULONA' for the default row. */
  code: string;
  name: string;
  kba: KbaRule;
  /** Credential analysis of a government photo ID is required. */
  credentialAnalysisRequired: boolean;
  credentialCitation: string;
  /** A photograph of the person's face is taken for the notary to compare with the ID photo. */
  selfieRequired: boolean;
  /** Why the selfie is taken: a rule of this platform unless a citation says the state requires it. */
  selfieCitation: string;
  /** The journal must not hold the number of the ID presented. */
  journalForbidsIdNumber: boolean;
  journalCitation: string | null;
  /** How long the recording, the journal and the identity evidence are kept. */
  retentionYears: number;
  retentionCitation: string;
  /** Methods that stand in for the identity step when the notary records the reason. */
  bypassMethods: ('personal_knowledge' | 'credible_witness')[];
  bypassCitation: string;
  /** Witnesses pass the identity step too. */
  witnessesProveIdentity: boolean;
  /** The step is redone when the person leaves the session and comes back (platform rule). */
  redoOnRejoin: boolean;
  /** A passed step counts for this many hours (platform rule: a new day means a new step). */
  validForHours: number;
  /** How long the notary or a signer may be out of the recorded call. */
  recordingInterruption: InterruptionRule;
  /**
   * Acts the state does not let its online notaries perform, each with its citation (decision 052).
   * Empty where no such rule is recorded here: the platform claims no restriction it has not sourced.
   */
  actsNotPerformedOnline: readonly { act: string; citation: string }[];
}

/** The platform's limit where a state gives no number: segments are about 4 s, a reconnect takes a few. */
const platformInterruptionSeconds = 10;

const platformSelfie = 'Platform rule: the notary compares the person on camera with the ID photograph (no state figure is claimed).';

export const identityPolicies: readonly IdentityPolicy[] = [
  {
    code: 'TX',
    name: 'Texas',
    kba: {
      questionCount: 5,
      choicesPerQuestion: 5,
      passPercent: 80,
      timeLimitSeconds: 120,
      retakes: 1,
      retakeWindowHours: 24,
      minReplacedPercent: 60,
      lockoutHours: 24,
      citation: '1 Tex. Admin. Code § 87.70(b)',
    },
    credentialAnalysisRequired: true,
    credentialCitation: '1 Tex. Admin. Code § 87.70(c)-(d)',
    selfieRequired: true,
    selfieCitation: platformSelfie,
    journalForbidsIdNumber: true,
    journalCitation: '1 Tex. Admin. Code § 87.50(a)',
    retentionYears: 5,
    retentionCitation: 'Tex. Gov’t Code § 406.108',
    bypassMethods: ['personal_knowledge', 'credible_witness'],
    bypassCitation: '1 Tex. Admin. Code § 87.40(d)',
    witnessesProveIdentity: true,
    redoOnRejoin: true,
    validForHours: 24,
    recordingInterruption: {
      maxSeconds: platformInterruptionSeconds,
      isPlatformRule: true,
      requirement: 'Texas requires continuous, synchronous audio-visual feeds and a recording of the session',
      citation: '1 Tex. Admin. Code § 87.71(1); § 87.41(g)',
    },
    actsNotPerformedOnline: [],
  },
  {
    code: 'VA',
    name: 'Virginia',
    kba: {
      questionCount: 5,
      choicesPerQuestion: 5,
      passPercent: 80,
      timeLimitSeconds: 120,
      retakes: 2,
      retakeWindowHours: 48,
      // No more than 60% of the questions of the first quiz are reused.
      minReplacedPercent: 40,
      lockoutHours: 0,
      citation: 'Va. Code § 47.1-2 (knowledge-based authentication assessment, 2024 Acts ch. 832)',
    },
    credentialAnalysisRequired: true,
    credentialCitation: 'Va. Code § 47.1-2 (satisfactory evidence of identity)',
    selfieRequired: true,
    selfieCitation: platformSelfie,
    journalForbidsIdNumber: false,
    journalCitation: null,
    retentionYears: 5,
    retentionCitation: 'Va. Code § 47.1-14',
    bypassMethods: ['personal_knowledge', 'credible_witness'],
    bypassCitation: 'Va. Code § 47.1-2 (satisfactory evidence of identity)',
    witnessesProveIdentity: true,
    redoOnRejoin: true,
    validForHours: 24,
    recordingInterruption: {
      maxSeconds: platformInterruptionSeconds,
      isPlatformRule: true,
      requirement: 'Virginia requires the electronic notary to keep a copy of the recording of the video and audio conference',
      citation: 'Va. Code § 47.1-14(C)',
    },
    actsNotPerformedOnline: [],
  },
  {
    code: 'FL',
    name: 'Florida',
    kba: {
      questionCount: 5,
      choicesPerQuestion: 5,
      passPercent: 80,
      timeLimitSeconds: 120,
      retakes: 1,
      retakeWindowHours: 24,
      minReplacedPercent: 40,
      lockoutHours: 24,
      citation: 'Fla. Stat. § 117.295(3)(a)',
    },
    credentialAnalysisRequired: true,
    credentialCitation: 'Fla. Stat. § 117.295(3)(b)',
    selfieRequired: true,
    selfieCitation: platformSelfie,
    journalForbidsIdNumber: false,
    journalCitation: null,
    retentionYears: 10,
    retentionCitation: 'Fla. Stat. § 117.245(4)',
    bypassMethods: ['personal_knowledge', 'credible_witness'],
    bypassCitation: 'Fla. Stat. § 117.265',
    witnessesProveIdentity: true,
    redoOnRejoin: true,
    validForHours: 24,
    recordingInterruption: {
      maxSeconds: platformInterruptionSeconds,
      isPlatformRule: true,
      requirement: 'Florida requires an uninterrupted and unedited copy of the recording of the audio-video communication',
      citation: 'Fla. Stat. § 117.245(2); § 117.265(2)',
    },
    actsNotPerformedOnline: [],
  },
  {
    code: 'RULONA',
    name: 'Other states (RULONA default)',
    kba: {
      questionCount: 5,
      choicesPerQuestion: 5,
      passPercent: 80,
      timeLimitSeconds: 120,
      retakes: 2,
      retakeWindowHours: 48,
      minReplacedPercent: 40,
      lockoutHours: 24,
      citation: 'RULONA § 14A leaves the method to state rules; figures of the MISMO Remote Online Notarization Standard',
    },
    credentialAnalysisRequired: true,
    credentialCitation: 'RULONA § 14A(c) (identity proofing and credential analysis)',
    selfieRequired: true,
    selfieCitation: platformSelfie,
    journalForbidsIdNumber: false,
    journalCitation: null,
    retentionYears: 10,
    retentionCitation: 'RULONA § 14A(e) (recording kept at least 10 years)',
    bypassMethods: ['personal_knowledge', 'credible_witness'],
    bypassCitation: 'RULONA § 14A(c)',
    witnessesProveIdentity: true,
    redoOnRejoin: true,
    validForHours: 24,
    recordingInterruption: {
      maxSeconds: platformInterruptionSeconds,
      isPlatformRule: true,
      requirement: 'The Revised Uniform Law on Notarial Acts requires an audio-visual recording of the performance of the notarial act',
      citation: 'RULONA § 14A(c)(3)',
    },
    actsNotPerformedOnline: [],
  },
];

export const defaultPolicyCode = 'RULONA';

/**
 * The row for a commissioning state; the RULONA default for a state without its own row. `rows` is
 * the table to read: the platform's unless a caller (a test) hands it another.
 */
export function policyFor(stateCode: string | null | undefined, rows: readonly IdentityPolicy[] = identityPolicies): IdentityPolicy {
  const code = (stateCode ?? '').trim().toUpperCase();
  const row = rows.find((policy) => policy.code === code) ?? rows.find((policy) => policy.code === defaultPolicyCode);
  if (!row) throw new Error('The RULONA default policy row is missing.');
  return row;
}

/** The row's rule that keeps an act off online notarization, or null when the row records none (decision 052). */
export function findActRestriction(policy: Pick<IdentityPolicy, 'actsNotPerformedOnline'>, act: string): { act: string; citation: string } | null {
  return policy.actsNotPerformedOnline.find((rule) => rule.act === act) ?? null;
}

/**
 * Whether a bypass stands in for the identity step under this policy: it names a method (how the
 * notary identified the person instead) and the policy allows that method. A bypass without a
 * method, or with one the row no longer allows, counts for nothing.
 */
export function isBypassAllowed(person: { isIdBypassed: boolean; idBypassMethod: string | null }, policy: Pick<IdentityPolicy, 'bypassMethods'>): boolean {
  return person.isIdBypassed && person.idBypassMethod !== null && (policy.bypassMethods as string[]).includes(person.idBypassMethod);
}

/** Correct answers needed to pass a quiz of `questionCount` questions: the pass mark, rounded up. */
export function correctAnswersToPass(kba: Pick<KbaRule, 'passPercent'>, questionCount: number): number {
  return Math.ceil((kba.passPercent * questionCount) / 100 - 1e-9);
}

/** The rule in one sentence, saying whose rule the number is: "Texas requires … and sets no number of seconds; this platform allows at most 10 seconds (…)." */
export function describeInterruptionRule(rule: InterruptionRule): string {
  const seconds = `${rule.maxSeconds} second${rule.maxSeconds === 1 ? '' : 's'}`;
  return rule.isPlatformRule
    ? `${rule.requirement} (${rule.citation}) and sets no number of seconds; this platform allows at most ${seconds} (a platform rule, not a statute).`
    : `${rule.requirement} (${rule.citation}) and allows at most ${seconds}.`;
}
