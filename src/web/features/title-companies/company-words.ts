import { formatDate } from '#shared/dates.ts';
import { documentTagLabels } from '#shared/documents.ts';
import { notarizationTypes } from '#shared/jobs.ts';
import { companyMemberRoleLabels, type CompanyAgent, type JobType } from '#shared/title-companies.ts';
import { getUsStateName } from '#shared/us-states.ts';

/** "Austin, Texas"; what is known of the two, or null. */
export function describePlace(city: string | null, state: string | null): string | null {
  return [city, state ? getUsStateName(state) : null].filter(Boolean).join(', ') || null;
}

/** What the company's default notary means for its new jobs. */
export function describeDefaultNotary(notaryName: string | null): string {
  return notaryName
    ? `New jobs of this company get ${notaryName} unless another notary is chosen.`
    : 'This company has no default notary: new jobs have no notary until one is chosen.';
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** A member or invitation in a sentence: "Agent, joined Mar 3, 2026." or "Title staff, invited Mar 3, 2026; the link works until Mar 10, 2026." */
export function describeMember(
  agent: Pick<CompanyAgent, 'role' | 'status' | 'since' | 'expiresAt'>,
  now: Date,
  format: (iso: string) => string = formatDate,
): string {
  const role = companyMemberRoleLabels[agent.role];
  if (agent.status === 'active') return `${role}, joined ${format(agent.since)}.`;
  const invited = `${role}, invited ${format(agent.since)}`;
  if (!agent.expiresAt) return `${invited}; the invitation has not been accepted yet.`;
  return new Date(agent.expiresAt).getTime() > now.getTime()
    ? `${invited}; the link works until ${format(agent.expiresAt)}.`
    : `${invited}; the link stopped working on ${format(agent.expiresAt)}. Remove the invitation and invite them again.`;
}

/** A job type's settings in one sentence: "Jurat with 2 witnesses; documents to be signed and reference." */
export function describeJobType(jobType: Pick<JobType, 'notarizationType' | 'witnessCount' | 'documentTags'>): string {
  const act = notarizationTypes.find((type) => type.key === jobType.notarizationType)?.label ?? 'A notarization';
  const witnesses = jobType.witnessCount > 0 ? ` with ${plural(jobType.witnessCount, 'witness', 'witnesses')}` : ', no witnesses';
  const tags = jobType.documentTags.map((tag) => documentTagLabels[tag].toLowerCase());
  const documents = tags.length ? `; documents tagged ${tags.length > 1 ? `${tags.slice(0, -1).join(', ')} and ${tags.at(-1)}` : tags[0]}` : '';
  return `${act}${witnesses}${documents}.`;
}

/** The question before removing a member or withdrawing an invitation, saying what happens. */
export function describeMemberRemoval(agent: Pick<CompanyAgent, 'name' | 'email' | 'status'>, companyName: string) {
  if (agent.status === 'invited') {
    return {
      title: `Withdraw the invitation to ${agent.name}?`,
      description: `The link emailed to ${agent.email} stops working; ${agent.name} does not join ${companyName}.`,
      confirmLabel: 'Withdraw invitation',
    };
  }
  return {
    title: `Remove ${agent.name} from ${companyName}?`,
    description: `${agent.name} loses access to ${companyName} and its jobs at once. The jobs they worked on and their history stay with the company.`,
    confirmLabel: 'Remove',
  };
}

/** The question before an administrator closes a company, saying what happens to its people and its records. */
export function describeCompanyClosing(companyName: string, memberCount: number) {
  const people = memberCount === 1 ? 'Its one member loses' : memberCount > 1 ? `Its ${memberCount} members lose` : 'Its people lose';
  return {
    title: `Close ${companyName}?`,
    description: `${people} access to the company at once, and it takes no new jobs. Its jobs and their history stay, for administrators and for each job’s participants.`,
    confirmLabel: 'Close the company',
  };
}
