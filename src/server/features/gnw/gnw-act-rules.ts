import { findActRestriction, identityPolicies, policyFor, type IdentityPolicy } from '#shared/identity-policies.ts';
import { notarizationTypes } from '#shared/jobs.ts';

/**
 * Whether a notary's commission allows the act online (decision 061): the policy row of
 * their commissioning state decides (its actsNotPerformedOnline, decision 052), the same row that
 * refuses the act on the job. The matcher, the loop page and the open times all ask here, so no one
 * is offered, shown as next in line or booked for an act their state keeps off. `policies` is the
 * table to read: the platform's own unless a caller (a test) hands it another.
 */
export function findActBlocker(commissionState: string | null, act: string, policies: readonly IdentityPolicy[] = identityPolicies): string | null {
  const policy = policyFor(commissionState, policies);
  const rule = findActRestriction(policy, act);
  if (!rule) return null;
  const label = notarizationTypes.find((type) => type.key === act)?.label ?? act;
  return `the rules of ${policy.name} do not let an online notary perform this act (${label}; ${rule.citation}).`;
}
