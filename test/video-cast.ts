import { expect } from 'vitest';
import type { Job } from '#shared/jobs.ts';
import type { TestApp, TestUser } from './create-test-app.ts';
import type { JobKit } from './job-fixtures.ts';

/** The people of a live-session test: a title agent's ready job with a notary, a signer, a witness and an observer, and a stranger. */
export interface VideoCast {
  job: Job;
  agent: TestUser;
  notary: TestUser;
  signer: TestUser;
  witness: TestUser;
  observer: TestUser;
  stranger: TestUser;
  /** The job participant id of each person on the job. */
  idOf: (person: TestUser) => string;
}

/**
 * A ready job with a notary, a signer, a witness and an observer who all accepted their invitations.
 * Unless `identity` is 'unproven', the notary lets the signer and the witness skip the identity step
 * (id-bypass by personal knowledge, with a reason), so the session tests are not about the identity
 * step.
 */
export async function castVideoJob(t: TestApp, kit: JobKit, options: { isAccepted?: boolean; identity?: 'known' | 'unproven' } = {}): Promise<VideoCast> {
  const agent = await t.createUser({ roles: ['title_agent'] });
  const notary = await kit.createNotary();
  const signer = await t.createUser({ roles: ['signer'] });
  const witness = await t.createUser({ roles: ['witness'] });
  const observer = await t.createUser({ roles: ['observer'] });
  const stranger = await t.createUser({ roles: ['signer'] });
  const people = [
    { name: signer.name, email: signer.email, role: 'signer' },
    { name: witness.name, email: witness.email, role: 'witness' },
    { name: observer.name, email: observer.email, role: 'observer' },
  ];
  const created = await kit.createJob(agent, { notaryId: notary.id, signers: people });
  await kit.uploadPdf(agent, created.id);
  const job = await kit.moveJob(agent, created.id, ['ready']);
  if (options.isAccepted !== false) for (const person of [signer, witness, observer]) expect((await kit.acceptInvitation(person)).statusCode).toBe(200);
  const idOf = (person: TestUser) => {
    const found = job.participants.find((participant) => participant.email === person.email);
    if (!found) throw new Error(`${person.email} is not on the job`);
    return found.id;
  };
  if (options.identity !== 'unproven') {
    for (const person of [signer, witness]) {
      const known = await kit.call(notary, 'POST', `/api/jobs/${job.id}/signers/${idOf(person)}/id-bypass`, {
        enabled: true,
        reason: 'Identity step not under test here',
        method: 'personal_knowledge',
      });
      expect(known.statusCode, known.body).toBe(200);
    }
  }
  return { job, agent, notary, signer, witness, observer, stranger, idOf };
}
