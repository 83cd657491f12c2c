import { policyFor } from './identity-policies.ts';

/**
 * What each state's journal must hold before an entry is finalized, as data (decision
 * 026). A state is a row with its citation; a state without a row gets the RULONA default. Whether
 * the ID's number may be recorded and how long the journal is kept come from the identity policy
 * row of the same state (identity-policies.ts), so each figure is written down once.
 */

/** Fields the notary completes at finalize (the platform does not know them). */
export const journalFinalizeFields = ['signerAddress', 'feeCents', 'documentType', 'documentDate', 'credibleWitnesses'] as const;
export type JournalFinalizeField = (typeof journalFinalizeFields)[number];

export const journalFieldNames: Record<JournalFinalizeField, string> = {
  signerAddress: 'the signer’s address',
  feeCents: 'the fee charged (0 when none)',
  documentType: 'the type of document',
  documentDate: 'the date of the document',
  credibleWitnesses: 'the name and address of each credible witness',
};

export interface JournalPolicy {
  /** Two-letter state code, or 'RULONA' for the default row. */
  code: string;
  name: string;
  /** Always required before an entry is finalized. */
  requiredFields: JournalFinalizeField[];
  /** Required when the signer was identified through a credible witness. */
  requiredWithCredibleWitness: JournalFinalizeField[];
  citation: string;
}

export const journalPolicies: readonly JournalPolicy[] = [
  {
    code: 'TX',
    name: 'Texas',
    requiredFields: ['signerAddress', 'feeCents', 'documentDate'],
    requiredWithCredibleWitness: ['credibleWitnesses'],
    citation: 'Tex. Gov’t Code § 406.014(a) (date of the instrument, residence of the signer, the fee) and 1 Tex. Admin. Code § 87.50',
  },
  {
    code: 'VA',
    name: 'Virginia',
    requiredFields: ['signerAddress', 'feeCents'],
    requiredWithCredibleWitness: ['credibleWitnesses'],
    citation: 'Va. Code § 47.1-14 (electronic journal: the principal’s name and address, the evidence of identity, the fee)',
  },
  {
    code: 'FL',
    name: 'Florida',
    requiredFields: ['signerAddress', 'feeCents', 'documentType'],
    requiredWithCredibleWitness: ['credibleWitnesses'],
    citation: 'Fla. Stat. § 117.245 (type of document, name and address of each principal and credible witness, the fee)',
  },
  {
    code: 'RULONA',
    name: 'Other states (RULONA default)',
    requiredFields: ['signerAddress', 'feeCents'],
    requiredWithCredibleWitness: ['credibleWitnesses'],
    citation: 'RULONA § 19(b) (full name and address of each individual, the method of identification, the fee if any)',
  },
];

export interface ResolvedJournalPolicy extends JournalPolicy {
  /** The journal may hold the number of the ID presented. */
  isIdNumberAllowed: boolean;
  idNumberCitation: string | null;
  retentionYears: number;
  retentionCitation: string;
}

/** The row for a commissioning state (the RULONA default without one), with its retention and ID-number rule. */
export function journalPolicyFor(stateCode: string | null | undefined): ResolvedJournalPolicy {
  const code = (stateCode ?? '').trim().toUpperCase();
  const row = journalPolicies.find((policy) => policy.code === code) ?? journalPolicies.find((policy) => policy.code === 'RULONA');
  if (!row) throw new Error('The RULONA default journal policy row is missing.');
  const identity = policyFor(code);
  return {
    ...row,
    isIdNumberAllowed: !identity.journalForbidsIdNumber,
    idNumberCitation: identity.journalCitation,
    retentionYears: identity.retentionYears,
    retentionCitation: identity.retentionCitation,
  };
}
