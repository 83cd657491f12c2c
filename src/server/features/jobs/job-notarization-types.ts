import { notarizationTypes, type JobNotarizationTypes, type NotarizationType } from '#shared/jobs.ts';
import { defaultPolicyCode, findActRestriction, type IdentityPolicy } from '#shared/identity-policies.ts';
import type { Ctx } from '#server/lib/context.ts';
import { conflict } from '#server/lib/errors.ts';
import { policyOfJob } from '#server/features/identity/identity-access.ts';
import { findParticipants } from './participants.service.ts';
import { getJobAccess } from './job-access.ts';

type PolicyActs = Pick<IdentityPolicy, 'code' | 'name' | 'actsNotPerformedOnline'>;
type PolicyIdentification = Pick<IdentityPolicy, 'name' | 'bypassMethods' | 'bypassCitation' | 'credentialCitation' | 'kba'>;

/** The acts and what stops each, from the policy row alone (decision 052). */
export function actsUnderPolicy(policy: PolicyActs): JobNotarizationTypes['items'] {
  return notarizationTypes.map((type) => {
    const rule = findActRestriction(policy, type.key);
    return {
      key: type.key,
      label: type.label,
      description: type.description,
      allowed: rule === null,
      reason: rule ? `The rules of ${policy.name} do not let an online notary perform this act.` : null,
      citation: rule?.citation ?? null,
    };
  });
}

/**
 * The ways a signer of this job may be identified: the identity step always; personal knowledge and a
 * credible witness where the row allows them, the credible witness only when the job has a witness.
 */
export function identificationUnderPolicy(policy: PolicyIdentification, participants: ReadonlyArray<{ role: string }>): JobNotarizationTypes['identification'] {
  const allows = (method: 'personal_knowledge' | 'credible_witness') => policy.bypassMethods.includes(method);
  const refused = `The rules of ${policy.name} do not allow it.`;
  const hasWitness = participants.some((person) => person.role === 'witness');
  return [
    {
      method: 'identity_step',
      label: 'The identity step: credential analysis of a photo ID and a knowledge-based quiz',
      allowed: true,
      reason: null,
      citation: `${policy.credentialCitation}; ${policy.kba.citation}`,
    },
    {
      method: 'personal_knowledge',
      label: 'The notary knows the signer personally',
      allowed: allows('personal_knowledge'),
      reason: allows('personal_knowledge') ? null : refused,
      citation: policy.bypassCitation,
    },
    {
      method: 'credible_witness',
      label: 'A credible witness on the job vouches for the signer',
      allowed: allows('credible_witness') && hasWitness,
      reason: !allows('credible_witness') ? refused : hasWitness ? null : 'Add a witness to the job first: a credible witness must take part in the session.',
      citation: policy.bypassCitation,
    },
  ];
}

/** Refuses an act the notary's commissioning state keeps off online notarization, naming the rule. */
export function assertActAllowed(policy: PolicyActs, act: string): void {
  const rule = findActRestriction(policy, act);
  if (!rule) return;
  const label = notarizationTypes.find((type) => type.key === act)?.label ?? act;
  throw conflict(
    `The rules of ${policy.name} do not let an online notary perform this act (${label}; ${rule.citation}). Choose another act or another notary.`,
    {
      act,
      policy: policy.code,
    },
  );
}

/** GET /api/jobs/{id}/notarization-types: for whoever may read the job. */
export async function getJobNotarizationTypes(ctx: Ctx, jobId: string): Promise<JobNotarizationTypes> {
  const access = await getJobAccess(ctx, jobId);
  const policy = await policyOfJob(ctx.db, access.job);
  const participants = await findParticipants(ctx.db, jobId);
  return {
    policy: { code: policy.code, name: policy.name, isDefault: policy.code === defaultPolicyCode },
    current: access.job.notarizationType as NotarizationType,
    items: actsUnderPolicy(policy),
    identification: identificationUnderPolicy(policy, participants),
  };
}
