import type { ParticipantRole } from '#shared/jobs.ts';

export interface ParticipantRow {
  key: number;
  name: string;
  email: string;
  role: ParticipantRole;
}

/** A job has at most this many participants (createJobInputSchema). */
export const maximumParticipants = 10;

function isBlank(row: ParticipantRow): boolean {
  return !row.name.trim() && !row.email.trim();
}

/**
 * The participant rows once a job type asking for `witnessCount` witnesses is picked: empty witness
 * rows are added until there are that many witnesses, and empty witness rows a type picked before
 * added beyond that are taken away again. A row with anything typed in it is never removed, and
 * the list never grows past the participants a job may have.
 */
export function applyWitnessCount(rows: readonly ParticipantRow[], witnessCount: number): ParticipantRow[] {
  const filledWitnesses = rows.filter((row) => row.role === 'witness' && !isBlank(row)).length;
  let emptyWitnessesToKeep = Math.max(0, witnessCount - filledWitnesses);
  const kept = rows.filter((row) => {
    if (row.role !== 'witness' || !isBlank(row)) return true;
    if (emptyWitnessesToKeep === 0) return false;
    emptyWitnessesToKeep -= 1;
    return true;
  });
  let nextKey = Math.max(0, ...rows.map((row) => row.key)) + 1;
  const missing = Math.min(emptyWitnessesToKeep, maximumParticipants - kept.length);
  const added = Array.from({ length: Math.max(0, missing) }, () => ({ key: nextKey++, name: '', email: '', role: 'witness' as const }));
  return [...kept, ...added];
}

/** What the job's notary will be when the person chooses none, for company staff whose company has a default notary. */
export function describeNotaryOutcome(chosenNotaryName: string | null, defaultNotaryName: string | null, companyName: string | null): string | null {
  if (chosenNotaryName) return null;
  const whose = companyName ? `${companyName}’s default notary` : 'the company’s default notary';
  return defaultNotaryName
    ? `If you choose no notary, the job gets ${defaultNotaryName}, ${whose}.`
    : 'If you choose no notary, the job waits until one is assigned: the company has no default notary.';
}

/** The hint under the job type choice: what picking one does, or what the picked one did. */
export function describeJobTypeChoice(jobType: { witnessCount: number; instructions: string } | null): string {
  if (!jobType) return 'A template of your company: it sets the notarization type and adds a row for each witness it asks for.';
  const witnesses =
    jobType.witnessCount > 0
      ? `A row for ${jobType.witnessCount === 1 ? 'its witness' : `each of its ${jobType.witnessCount} witnesses`} is ready below to fill in.`
      : 'It asks for no witnesses.';
  return `The notarization type is set. ${witnesses}${jobType.instructions.trim() ? ' Its instructions for the notary go with the job.' : ''}`;
}
