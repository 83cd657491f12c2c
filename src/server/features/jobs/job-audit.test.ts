import { randomUUID } from 'node:crypto';
import { asc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEvent } from '#shared/audit.ts';
import { describeAuditEvent } from '#shared/audit-sentences.ts';
import type { Job } from '#shared/jobs.ts';
import { auditEvents, jobParticipants, jobs } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createNotary } from '#test/notary-fixtures.ts';
import { createJobKit } from '#test/job-fixtures.ts';
import { buildMultipart, makePdf } from '#test/pdf-fixtures.ts';

let t: TestApp;
let headers: Record<string, string>;
beforeAll(async () => {
  t = await createTestApp();
  headers = await t.signInAs(await t.createUser({ roles: ['title_agent'] }));
});
afterAll(async () => t?.close());

const email = () => `p-${randomUUID().slice(0, 8)}@example.test`;

async function createJob(signers: Array<{ name: string; email: string; role?: string }> = [{ name: 'Sam Signer', email: email() }]): Promise<Job> {
  const res = await t.app.inject({ method: 'POST', url: '/api/jobs', headers, payload: { title: 'Audited', notarizationType: 'jurat', signers } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as Job;
}

async function getTrail(jobId: string) {
  const res = await t.app.inject({ method: 'GET', url: `/api/jobs/${jobId}/audit`, headers });
  expect(res.statusCode).toBe(200);
  return res.json() as {
    events: Array<{ id: string; action: string; data: Record<string, unknown> }>;
    verification: { isValid: boolean; eventCount: number; firstBrokenEventId: string | null };
  };
}

describe('the job audit trail', () => {
  it('gains one event for every change, in order, and verifies', async () => {
    const job = await createJob();
    const body = buildMultipart([{ name: 'deed.pdf', content: await makePdf(1) }]);
    const uploaded = await t.app.inject({
      method: 'POST',
      url: `/api/jobs/${job.id}/documents`,
      headers: { ...headers, ...body.headers },
      payload: body.payload,
    });
    const documentId = uploaded.json().items[0].id as string;
    const steps = [
      { method: 'PATCH', url: `/api/jobs/${job.id}`, payload: { title: 'Audited again', version: 1 } },
      { method: 'POST', url: `/api/jobs/${job.id}/signers`, payload: { name: 'Wendy', email: email(), role: 'witness' } },
      {
        method: 'PATCH',
        url: `/api/jobs/${job.id}/documents/${documentId}`,
        payload: { tag: 'reference', clientSnapshotVersion: 1 },
        headers: { 'if-match': '1' },
      },
      { method: 'POST', url: `/api/jobs/${job.id}/audit/assets`, payload: { tag: 'id_front', docId: documentId } },
      { method: 'PATCH', url: `/api/jobs/${job.id}`, payload: { status: 'ready', version: 2 } },
    ] as const;
    for (const step of steps) {
      const res = await t.app.inject({
        method: step.method,
        url: step.url,
        headers: { ...headers, ...('headers' in step ? step.headers : {}) },
        payload: step.payload,
      });
      expect(res.statusCode, `${step.method} ${step.url}: ${res.body}`).toBeLessThan(300);
    }
    const trail = await getTrail(job.id);
    expect(trail.events.map((event) => event.action)).toEqual([
      'job.created',
      'participant.added',
      'document.uploaded',
      'job.updated',
      'participant.added',
      'document.updated',
      'audit_asset.added',
      'job.status_changed',
    ]);
    expect(trail.verification).toEqual({ isValid: true, eventCount: 8, firstBrokenEventId: null });
  });

  it('keeps no event of a change whose transaction failed half-way', async () => {
    // The second invitation email cannot be written: the job, its first participant and their events were already inserted in the transaction.
    const refused = `refused-${randomUUID().slice(0, 8)}@example.test`;
    await t.db.execute(
      sql.raw(`create or replace function refuse_test_mail() returns trigger language plpgsql as $$
      begin if new.to_address = '${refused}' then raise exception 'mail refused'; end if; return new; end $$`),
    );
    await t.db.execute(sql`create trigger refuse_test_mail before insert on email_outbox for each row execute function refuse_test_mail()`);
    try {
      const jobsBefore = await t.db.select({ count: sql<number>`count(*)::int` }).from(jobs);
      const eventsBefore = await t.db.select({ count: sql<number>`count(*)::int` }).from(auditEvents);
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/jobs',
        headers,
        payload: {
          title: 'Half done',
          notarizationType: 'jurat',
          signers: [
            { name: 'First', email: email() },
            { name: 'Second', email: refused },
          ],
        },
      });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({ error: 'internal_error', message: 'Something went wrong on our side. Please try again.' });
      expect(await t.db.select({ count: sql<number>`count(*)::int` }).from(jobs)).toEqual(jobsBefore);
      expect(await t.db.select({ count: sql<number>`count(*)::int` }).from(auditEvents)).toEqual(eventsBefore);
    } finally {
      await t.db.execute(sql`drop trigger refuse_test_mail on email_outbox`);
      await t.db.execute(sql`drop function refuse_test_mail()`);
    }
  });

  it.each([
    ['its data', (id: string) => sql`update audit_events set data = jsonb_set(data, '{title}', '"Forged"') where id = ${id}`],
    ['its action', (id: string) => sql`update audit_events set action = 'job.nothing_happened' where id = ${id}`],
  ])('fails verification at the event whose %s was edited in the database', async (_label, tamper) => {
    const job = await createJob();
    await t.app.inject({ method: 'PATCH', url: `/api/jobs/${job.id}`, headers, payload: { title: 'Second title', version: 1 } });
    const [first, second, third] = (await t.db.select().from(auditEvents).where(eq(auditEvents.jobId, job.id)).orderBy(asc(auditEvents.sequence))).map(
      (row) => row.id,
    );
    expect(third).toBeDefined();
    await t.db.execute(tamper(second ?? ''));
    const trail = await getTrail(job.id);
    expect(trail.verification).toEqual({ isValid: false, eventCount: 3, firstBrokenEventId: second });
    expect(trail.events.map((event) => event.id)).toEqual([first, second, third]);
  });

  it('leaves other jobs’ trails valid when one is tampered with', async () => {
    const [tampered, untouched] = [await createJob(), await createJob()];
    const [row] = await t.db.select().from(auditEvents).where(eq(auditEvents.jobId, tampered.id)).orderBy(asc(auditEvents.sequence));
    await t.db.execute(sql`update audit_events set created_at = created_at + interval '1 second' where id = ${row?.id}`);
    expect((await getTrail(tampered.id)).verification).toMatchObject({ isValid: false, firstBrokenEventId: row?.id });
    expect((await getTrail(untouched.id)).verification).toMatchObject({ isValid: true, firstBrokenEventId: null });
  });
});

describe('what the trail records for its sentences', () => {
  it('records the people and documents each event names, so the history reads as sentences', async () => {
    const kit = createJobKit(t);
    const agent = await t.createUser({ roles: ['title_agent'], name: 'Tess Title' });
    const [nora, ned] = [await kit.createNotary({ name: 'Nora Notary' }), await kit.createNotary({ name: 'Ned Notary' })];
    const samEmail = email();
    const job = await kit.createJob(agent, { signers: [{ name: 'Sam Signer', email: samEmail }] });
    const samSeat = job.participants[0]?.id ?? '';
    const documentId = await kit.uploadPdf(agent, job.id);
    const expectOk = (res: { statusCode: number; body: string }) => expect(res.statusCode, res.body).toBeLessThan(300);
    expectOk(await kit.call(agent, 'POST', `/api/jobs/${job.id}/replace-notary`, { notaryId: nora.id }));
    expectOk(await kit.call(agent, 'POST', `/api/jobs/${job.id}/replace-notary`, { notaryId: ned.id }));
    expectOk(await kit.call(agent, 'PATCH', `/api/jobs/${job.id}/signers/${samSeat}`, { name: 'Sam Signer', role: 'witness' }));
    await t.db
      .update(jobParticipants)
      .set({ invitedAt: new Date(Date.now() - 3600_000) })
      .where(eq(jobParticipants.id, samSeat));
    expectOk(await kit.call(agent, 'POST', `/api/jobs/${job.id}/signers/${samSeat}/remind`, {}));
    expectOk(
      await kit.call(ned, 'POST', `/api/jobs/${job.id}/signers/${samSeat}/id-bypass`, {
        enabled: true,
        reason: 'Known to me personally',
        method: 'personal_knowledge',
      }),
    );
    expectOk(
      await kit.call(
        agent,
        'PATCH',
        `/api/jobs/${job.id}/documents/${documentId}`,
        { name: 'deed-of-trust.pdf', clientSnapshotVersion: 1 },
        { 'if-match': '1' },
      ),
    );
    expectOk(await kit.call(agent, 'POST', `/api/jobs/${job.id}/audit/assets`, { tag: 'id_front', docId: documentId }));
    expectOk(await kit.call(agent, 'DELETE', `/api/jobs/${job.id}/audit/assets`, { tag: 'id_front', docId: documentId }));
    const patEmail = email();
    expectOk(await kit.call(agent, 'POST', `/api/jobs/${job.id}/signers`, { name: 'Pat Signer', email: patEmail, role: 'signer' }));
    await kit.moveJob(agent, job.id, ['ready']);
    expectOk(await kit.call(agent, 'POST', `/api/jobs/${job.id}/notify-ready-for-notary`));
    expectOk(await kit.call(ned, 'POST', `/api/jobs/${job.id}/documents/${documentId}/complete`));
    expectOk(await kit.acceptInvitation(await t.createUser({ roles: ['signer'], name: 'Sam Signer', email: samEmail })));
    expectOk(await t.app.inject({ method: 'POST', url: '/api/invites/request-access', payload: { email: patEmail } }));

    const trail = (await kit.call(agent, 'GET', `/api/jobs/${job.id}/audit`)).json() as { events: AuditEvent[]; verification: { isValid: boolean } };
    expect(trail.verification.isValid).toBe(true);
    const sentences = trail.events.map((event) => describeAuditEvent(event));
    expect(sentences).toEqual([
      'Tess Title created the job “Deed of trust” (Acknowledgment).',
      'Tess Title invited Sam Signer as a signer.',
      'Tess Title uploaded deed.pdf (2 pages).',
      'Tess Title assigned Nora Notary to the job.',
      'Tess Title replaced Nora Notary with Ned Notary as the job’s notary.',
      'Tess Title changed Sam Signer’s role to witness.',
      `Tess Title emailed Sam Signer a new invitation link at ${samEmail}.`,
      'Ned Notary identified Sam Signer by personal knowledge instead of the identity step. Reason: Known to me personally.',
      'Tess Title renamed deed.pdf to deed-of-trust.pdf.',
      'Tess Title added deed-of-trust.pdf to the audit record as “id_front”.',
      'Tess Title removed deed-of-trust.pdf from the audit record (“id_front”).',
      'Tess Title invited Pat Signer as a signer.',
      'Tess Title moved the job from Draft to Ready.',
      'Tess Title told Ned Notary that the job is ready for them.',
      'Ned Notary marked deed-of-trust.pdf complete.',
      'Sam Signer accepted the invitation.',
      'A new invitation link was requested for Pat Signer and emailed to their address.',
    ]);
    // Only what changed is recorded as changed: the name sent again is not.
    expect(trail.events.find((event) => event.action === 'participant.updated')?.data).toMatchObject({ name: 'Sam Signer', changes: { role: 'witness' } });
    expect(trail.events.find((event) => event.action === 'participant.updated')?.data.changes).not.toHaveProperty('name');
  });
});

describe('who sees addresses and browsers in the audit trail', () => {
  it('shows IP addresses and user agents to the job’s notary and admins only, not to participants or the creator', async () => {
    const notary = await createNotary(t, { state: 'TX', commissionExpiresOn: '2031-01-01' });
    const [signer, witness, observer] = [
      await t.createUser({ roles: ['signer'] }),
      await t.createUser({ roles: ['witness'] }),
      await t.createUser({ roles: ['observer'] }),
    ];
    const admin = await t.createUser({ roles: ['admin'] });
    const job = await createJob([
      { name: 'Sam', email: signer.email },
      { name: 'Wendy', email: witness.email, role: 'witness' },
      { name: 'Olga', email: observer.email, role: 'observer' },
    ]);
    for (const [index, user] of [signer, witness, observer].entries()) {
      await t.db
        .update(jobParticipants)
        .set({ userId: user.id })
        .where(eq(jobParticipants.id, job.participants[index]?.id ?? ''));
    }
    const assigned = await t.app.inject({
      method: 'POST',
      url: `/api/jobs/${job.id}/replace-notary`,
      headers: { ...headers, 'user-agent': 'AgentBrowser/1.0' },
      payload: { notaryId: notary.id },
    });
    expect(assigned.statusCode, assigned.body).toBe(200);

    const trailFor = async (user: TestUser | null) => {
      const res = await t.app.inject({ method: 'GET', url: `/api/jobs/${job.id}/audit`, headers: user ? await t.signInAs(user) : headers });
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as { events: Array<Record<string, unknown>>; verification: { isValid: boolean } };
    };
    for (const user of [signer, witness, observer, null]) {
      const trail = await trailFor(user);
      expect(trail.events.length).toBeGreaterThan(3);
      expect(trail.verification.isValid).toBe(true);
      for (const event of trail.events) {
        expect(event).not.toHaveProperty('ipAddress');
        expect(event).not.toHaveProperty('userAgent');
        // The hash covers the address and browser: with every other input known, it would let them be guessed.
        expect(event).not.toHaveProperty('hash');
        expect(event).toMatchObject({ action: expect.any(String), actorName: expect.anything(), createdAt: expect.any(String) });
      }
    }
    for (const user of [notary, admin]) {
      const trail = await trailFor(user);
      const replaced = trail.events.find((event) => event.action === 'job.notary_replaced');
      expect(replaced).toMatchObject({ ipAddress: '127.0.0.1', userAgent: 'AgentBrowser/1.0', hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    }
  });
});
