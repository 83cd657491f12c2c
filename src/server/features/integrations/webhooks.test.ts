import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, invoices, jobCharges, jobs as jobRows, titleCompanies, webhookDeliveries, webhookEndpoints } from '#server/db/schema/index.ts';
import { decryptSecret } from '#server/lib/secrets.ts';
import { createCompanyKit, type TestCompany } from '#test/company-fixtures.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, uniqueEmail } from '#test/job-fixtures.ts';

/** A public address written as an IP, so registering it needs no name server. */
const publicUrl = 'https://93.184.215.14/hooks/open-ron';

let t: TestApp;
let kit: ReturnType<typeof createCompanyKit>;
let jobs: ReturnType<typeof createJobKit>;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createCompanyKit(t);
  jobs = createJobKit(t);
});
afterAll(async () => t?.close());

async function register(company: TestCompany, input: Record<string, unknown> = {}, by: TestUser = company.staff) {
  const res = await kit.call(by, 'POST', `/api/title-companies/${company.id}/webhooks`, { url: publicUrl, events: ['job.created'], ...input });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { endpoint: { id: string; url: string; events: string[]; status: string }; secret: string; message: string };
}

const deliveriesOf = (endpointId: string) => t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId));

describe('registering a webhook endpoint', () => {
  it('registers an https endpoint for the company’s title staff, shows its secret once and keeps it sealed', async () => {
    const company = await kit.createCompany();
    const created = await register(company, { events: ['job.completed', 'job.created'], description: 'Our closing system' });
    expect(created.secret).toMatch(/^whsec_[\w-]{43}$/);
    expect(created.message).toMatch(/not shown again/);
    expect(created.endpoint).toMatchObject({ url: publicUrl, events: ['job.created', 'job.completed'], status: 'active' });

    const [row] = await t.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, created.endpoint.id));
    expect(row?.secretSealed).not.toContain(created.secret);
    expect(decryptSecret(t.secretsKey, row!.secretSealed)).toBe(created.secret);

    const list = await kit.call(company.staff, 'GET', `/api/title-companies/${company.id}/webhooks`);
    expect(list.statusCode).toBe(200);
    expect(list.json().items).toEqual([expect.objectContaining({ id: created.endpoint.id, description: 'Our closing system' })]);
    expect(list.body).not.toContain('whsec_');

    const [audit] = await t.db.select().from(auditEvents).where(eq(auditEvents.action, 'webhook.created'));
    expect(audit?.data).toMatchObject({ companyId: company.id, url: publicUrl });
    expect(JSON.stringify(audit?.data)).not.toContain('whsec_');
  });

  it.each([
    ['https://127.0.0.1/hook', /non-public address \(127\.0\.0\.1\)/],
    ['https://[::1]/hook', /non-public address \(::1\)/],
    ['https://[::ffff:127.0.0.1]/hook', /non-public/],
    ['https://10.1.2.3/hook', /non-public address \(10\.1\.2\.3\)/],
    ['https://192.168.1.10/hook', /non-public/],
    ['https://172.20.0.1/hook', /non-public/],
    ['https://100.64.0.7/hook', /non-public/],
    ['https://169.254.169.254/latest/meta-data', /non-public address \(169\.254\.169\.254\)/],
    ['https://[fd00::1]/hook', /non-public/],
    ['https://[fe80::1]/hook', /non-public/],
    ['https://224.0.0.1/hook', /non-public/],
    ['https://0.0.0.0/hook', /non-public/],
    ['https://localhost/hook', /localhost is a private, loopback/],
    ['http://93.184.215.14/hook', /only to https:\/\/ URLs/],
    ['ftp://93.184.215.14/hook', /only to https:\/\/ URLs/],
    ['https://user:secret@93.184.215.14/hook', /user name or password/],
    ['not a url', /full URL/],
  ])('refuses %s with a sentence, and registers nothing', async (url, message) => {
    const company = await kit.createCompany();
    const res = await kit.call(company.staff, 'POST', `/api/title-companies/${company.id}/webhooks`, { url, events: ['job.created'] });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().message).toMatch(message);
    expect(await t.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.companyId, company.id))).toHaveLength(0);
  });

  it('refuses no events, an unknown event, a long description, a NUL byte and a huge URL with clear sentences', async () => {
    const company = await kit.createCompany();
    const url = `/api/title-companies/${company.id}/webhooks`;
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ url: publicUrl, events: [] }, /at least one event/],
      [{ url: publicUrl, events: ['job.deleted'] }, /Events are among/],
      [{ url: publicUrl, events: ['job.created'], description: 'x'.repeat(201) }, /at most 200/],
      [{ url: `${publicUrl}\u0000`, events: ['job.created'] }, /./],
      [{ url: `https://93.184.215.14/${'a'.repeat(3000)}`, events: ['job.created'] }, /at most 2000/],
      [{ events: ['job.created'] }, /URL/],
    ];
    for (const [payload, message] of cases) {
      const res = await kit.call(company.staff, 'POST', url, payload);
      expect(res.statusCode, `${JSON.stringify(payload).slice(0, 80)}: ${res.body}`).toBe(400);
      expect(res.json().message).toMatch(message);
    }
  });

  it('keeps at most ten active endpoints per company', async () => {
    const company = await kit.createCompany();
    for (let index = 0; index < 10; index += 1) await register(company);
    const res = await kit.call(company.staff, 'POST', `/api/title-companies/${company.id}/webhooks`, { url: publicUrl, events: ['job.created'] });
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toMatch(/10 active endpoints/);
  });

  it('changes nothing of a closed company', async () => {
    const company = await kit.createCompany();
    const { endpoint } = await register(company);
    await t.db.update(titleCompanies).set({ closedAt: new Date() }).where(eq(titleCompanies.id, company.id));
    const created = await kit.call(company.staff, 'POST', `/api/title-companies/${company.id}/webhooks`, { url: publicUrl, events: ['job.created'] });
    expect(created.statusCode).toBe(409);
    const changed = await kit.call(company.staff, 'PATCH', `/api/title-companies/${company.id}/webhooks/${endpoint.id}`, { events: ['job.completed'] });
    expect(changed.statusCode).toBe(409);
    expect(changed.json().error).toBe('company_closed');
  });
});

describe('who may manage webhooks', () => {
  it('refuses anonymous callers, agents, administrators, other roles and other companies’ staff on every route', async () => {
    const company = await kit.createCompany();
    const other = await kit.createCompany();
    const { endpoint } = await register(company);
    const job = await jobs.createJob(company.staff, { signers: [{ name: 'Sam Signer', email: uniqueEmail() }] });
    const [delivery] = await deliveriesOf(endpoint.id);
    expect(delivery, 'the job created an event').toBeDefined();
    expect(job.id).toBeTruthy();
    const routes: Array<[method: 'GET' | 'POST' | 'PATCH', url: string, payload?: Record<string, unknown>]> = [
      ['GET', `/api/title-companies/${company.id}/webhooks`],
      ['POST', `/api/title-companies/${company.id}/webhooks`, { url: publicUrl, events: ['job.created'] }],
      ['PATCH', `/api/title-companies/${company.id}/webhooks/${endpoint.id}`, { description: 'taken over' }],
      ['POST', `/api/title-companies/${company.id}/webhooks/${endpoint.id}/disable`],
      ['POST', `/api/title-companies/${company.id}/webhooks/${endpoint.id}/rotate-secret`],
      ['GET', `/api/title-companies/webhooks/${endpoint.id}/deliveries`],
      ['POST', `/api/title-companies/webhooks/${endpoint.id}/deliveries/${delivery!.id}/replay`],
    ];
    const admin = await t.createUser({ roles: ['admin'] });
    const [notary, signer, billing] = await Promise.all([
      t.createUser({ roles: ['notary'] }),
      t.createUser({ roles: ['signer'] }),
      t.createUser({ roles: ['billing'] }),
    ]);
    const titleAgent = await t.createUser({ roles: ['title'] });
    await kit.addMember(company.id, titleAgent, 'title_agent');
    for (const [method, url, payload] of routes) {
      expect((await kit.call(null, method, url, payload)).statusCode, `anonymous ${method} ${url}`).toBe(401);
      for (const person of [admin, notary, signer, billing]) {
        const res = await kit.call(person, method, url, payload);
        expect(res.statusCode, `${person.roles[0]} ${method} ${url}`).toBe(403);
      }
      const agent = await kit.call(company.agent, method, url, payload);
      expect(agent.statusCode, `agent ${method} ${url}`).toBe(403);
      // Someone with the title role who is only an agent of this company is told who may.
      const agentWithTitleRole = await kit.call(titleAgent, method, url, payload);
      expect(agentWithTitleRole.statusCode, `title-role agent ${method} ${url}`).toBe(403);
      expect(agentWithTitleRole.json().message).toMatch(/title staff/);
      const stranger = await kit.call(other.staff, method, url, payload);
      expect(stranger.statusCode, `other company's staff ${method} ${url}`).toBe(404);
    }
    // Nothing changed: still one endpoint, active, with one delivery.
    const [row] = await t.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    expect(row).toMatchObject({ disabledAt: null, description: null });
    expect(await deliveriesOf(endpoint.id)).toHaveLength(1);
    expect(await t.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.companyId, company.id))).toHaveLength(1);
  });

  it('answers 404 for another company’s endpoint named under one’s own company, and for unknown ids', async () => {
    const mine = await kit.createCompany();
    const theirs = await kit.createCompany();
    const { endpoint } = await register(theirs);
    const res = await kit.call(mine.staff, 'PATCH', `/api/title-companies/${mine.id}/webhooks/${endpoint.id}`, { description: 'mine now' });
    expect(res.statusCode).toBe(404);
    const unknown = await kit.call(mine.staff, 'GET', `/api/title-companies/webhooks/${crypto.randomUUID()}/deliveries`);
    expect(unknown.statusCode).toBe(404);
    const badId = await kit.call(mine.staff, 'GET', `/api/title-companies/webhooks/not-a-uuid/deliveries`);
    expect(badId.statusCode).toBe(400);
    expect(badId.json().message).toMatch(/Endpoint id must be a UUID/);
  });
});

describe('changing, rotating and disabling an endpoint', () => {
  it('changes the URL, events and description, checking a new URL as at registration', async () => {
    const company = await kit.createCompany();
    const { endpoint } = await register(company);
    const url = `/api/title-companies/${company.id}/webhooks/${endpoint.id}`;
    const refused = await kit.call(company.staff, 'PATCH', url, { url: 'https://169.254.169.254/' });
    expect(refused.statusCode).toBe(400);
    const empty = await kit.call(company.staff, 'PATCH', url, {});
    expect(empty.statusCode).toBe(400);
    const res = await kit.call(company.staff, 'PATCH', url, { url: 'https://93.184.215.15/new', events: ['invoice.issued'], description: 'Billing' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ url: 'https://93.184.215.15/new', events: ['invoice.issued'], description: 'Billing' });
  });

  it('gives a new secret once, and the old one no longer signs', async () => {
    const company = await kit.createCompany();
    const { endpoint, secret } = await register(company);
    const res = await kit.call(company.staff, 'POST', `/api/title-companies/${company.id}/webhooks/${endpoint.id}/rotate-secret`);
    expect(res.statusCode, res.body).toBe(200);
    const rotated = res.json().secret as string;
    expect(rotated).not.toBe(secret);
    const [row] = await t.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    expect(decryptSecret(t.secretsKey, row!.secretSealed)).toBe(rotated);
  });

  it('disables an endpoint: waiting deliveries fail, no new event is queued for it, and it cannot be changed or replayed', async () => {
    const company = await kit.createCompany();
    const { endpoint } = await register(company);
    await jobs.createJob(company.staff, { signers: [] });
    const [waiting] = await deliveriesOf(endpoint.id);
    expect(waiting?.status).toBe('pending');
    const res = await kit.call(company.staff, 'POST', `/api/title-companies/${company.id}/webhooks/${endpoint.id}/disable`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().endpoint.status).toBe('disabled');
    const [failed] = await deliveriesOf(endpoint.id);
    expect(failed).toMatchObject({ status: 'failed', lastError: 'The endpoint was disabled before this was delivered.' });

    await jobs.createJob(company.staff, { signers: [] });
    expect(await deliveriesOf(endpoint.id)).toHaveLength(1);
    const again = await kit.call(company.staff, 'POST', `/api/title-companies/${company.id}/webhooks/${endpoint.id}/disable`);
    expect(again.statusCode).toBe(409);
    const replay = await kit.call(company.staff, 'POST', `/api/title-companies/webhooks/${endpoint.id}/deliveries/${failed!.id}/replay`);
    expect(replay.statusCode).toBe(409);
    const list = (await kit.call(company.staff, 'GET', `/api/title-companies/${company.id}/webhooks`)).json().items;
    expect(list).toEqual([expect.objectContaining({ id: endpoint.id, status: 'disabled' })]);
  });
});

describe('events queued with the change they report', () => {
  it('queues job.created and participant.invited for the company’s endpoints that asked, without personal data', async () => {
    const company = await kit.createCompany();
    const both = await register(company, { events: ['job.created', 'participant.invited'] });
    const createdOnly = await register(company, { events: ['job.created'] });
    const other = await kit.createCompany();
    const elsewhere = await register(other, { events: ['job.created', 'participant.invited'] });
    const email = uniqueEmail('signer');
    const job = await jobs.createJob(company.agent, { signers: [{ name: 'Sam Signer', email }] });

    const received = await deliveriesOf(both.endpoint.id);
    expect(received.map((row) => row.eventType).sort()).toEqual(['job.created', 'participant.invited']);
    const created = JSON.parse(received.find((row) => row.eventType === 'job.created')!.body);
    expect(created).toMatchObject({ type: 'job.created', companyId: company.id, data: { jobId: job.id, status: 'draft', notarizationType: 'acknowledgment' } });
    expect(created.id).toBe(received.find((row) => row.eventType === 'job.created')!.eventId);
    const invited = JSON.parse(received.find((row) => row.eventType === 'participant.invited')!.body);
    expect(invited.data).toMatchObject({ jobId: job.id, participantId: job.participants[0]!.id, role: 'signer' });
    for (const row of received) {
      expect(row.body).not.toContain(email);
      expect(row.body).not.toContain('Sam Signer');
    }
    // The same event has the same id on every endpoint.
    const [sameEvent] = await deliveriesOf(createdOnly.endpoint.id);
    expect(sameEvent?.eventId).toBe(created.id);
    expect(await deliveriesOf(elsewhere.endpoint.id)).toHaveLength(0);
  });

  it('queues nothing for a job creation that is refused', async () => {
    const company = await kit.createCompany();
    const { endpoint } = await register(company);
    const email = uniqueEmail();
    const res = await kit.call(company.staff, 'POST', '/api/jobs', {
      title: 'Twice the same',
      notarizationType: 'acknowledgment',
      signers: [
        { name: 'One', email },
        { name: 'Two', email },
      ],
    });
    expect(res.statusCode).toBe(400);
    expect(await deliveriesOf(endpoint.id)).toHaveLength(0);
  });

  it('queues document.notarized and job.completed when the notary seals the job', async () => {
    const company = await kit.createCompany();
    const { endpoint } = await register(company, { events: ['document.notarized', 'job.completed'] });
    const notary = await jobs.createNotary();
    const signer = await t.createUser({ roles: ['signer'] });
    const job = await jobs.createJob(company.agent, { notaryId: notary.id, signers: [{ name: signer.name, email: signer.email }] });
    expect((await jobs.acceptInvitation(signer)).statusCode).toBe(200);
    const documentId = await jobs.uploadPdf(company.agent, job.id);
    await jobs.moveJob(company.agent, job.id, ['ready']);
    await jobs.moveJob(notary, job.id, ['in_session']);
    expect(await deliveriesOf(endpoint.id)).toHaveLength(0);
    await jobs.sealJob(notary, job.id);

    const rows = await deliveriesOf(endpoint.id);
    expect(rows.map((row) => row.eventType).sort()).toEqual(['document.notarized', 'job.completed']);
    const notarized = JSON.parse(rows.find((row) => row.eventType === 'document.notarized')!.body);
    expect(notarized.data).toMatchObject({ jobId: job.id, documentId, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const completed = JSON.parse(rows.find((row) => row.eventType === 'job.completed')!.body);
    expect(completed.data).toMatchObject({ jobId: job.id, status: 'completed' });
  });

  it('queues session.started and recording.stored when the notary starts the session and stops its recording', async () => {
    const company = await kit.createCompany();
    const { endpoint } = await register(company, { events: ['session.started', 'recording.stored'] });
    const notary = await jobs.createNotary();
    const signer = await t.createUser({ roles: ['signer'] });
    const job = await jobs.createJob(company.agent, { notaryId: notary.id, signers: [{ name: signer.name, email: signer.email }] });
    expect((await jobs.acceptInvitation(signer)).statusCode).toBe(200);
    await jobs.uploadPdf(company.agent, job.id);
    await jobs.moveJob(company.agent, job.id, ['ready']);
    const { sessionId, recordingId } = await jobs.startRecordedSession(notary, job.id, [signer]);
    const started = await deliveriesOf(endpoint.id);
    expect(started.map((row) => row.eventType)).toEqual(['session.started']);
    expect(JSON.parse(started[0]!.body).data).toMatchObject({ jobId: job.id, sessionId });

    const stopped = await jobs.call(notary, 'POST', '/api/video/recording/stop', { sessionId, recordingId });
    expect(stopped.statusCode, stopped.body).toBe(200);
    const stored = (await deliveriesOf(endpoint.id)).find((row) => row.eventType === 'recording.stored');
    expect(JSON.parse(stored!.body).data).toMatchObject({ jobId: job.id, sessionId, recordingId, segmentCount: 0 });
  });

  it('queues invoice.issued for the invoiced company when billing staff issue its invoice', async () => {
    const company = await kit.createCompany();
    const { endpoint } = await register(company, { events: ['invoice.issued'] });
    const billing = await t.createUser({ roles: ['billing'] });
    const [job] = await t.db.insert(jobRows).values({ title: 'Charged', notarizationType: 'ron', status: 'completed', companyId: company.id }).returning();
    await t.db.insert(jobCharges).values({
      jobId: job!.id,
      companyId: company.id,
      key: 'platform',
      label: 'Platform fee',
      unit: 'job',
      feeKind: 'platform',
      quantity: 1,
      unitAmountCents: 1000,
      amountCents: 1000,
      priceSource: 'default',
      position: 0,
      createdAt: new Date(Date.UTC(2026, 10, 5, 15)),
    });
    expect((await kit.call(billing, 'POST', '/api/billing/invoices/generate', { period: '2026-11' })).statusCode).toBe(200);
    const [draft] = await t.db.select().from(invoices).where(eq(invoices.companyId, company.id));
    const issued = await kit.call(billing, 'POST', `/api/billing/invoices/${draft!.id}/issue`);
    expect(issued.statusCode, issued.body).toBe(200);
    const [row] = await deliveriesOf(endpoint.id);
    expect(JSON.parse(row!.body)).toMatchObject({
      type: 'invoice.issued',
      companyId: company.id,
      data: { invoiceId: draft!.id, number: issued.json().number, period: '2026-11', totalCents: 1000 },
    });
  });
});

describe('the delivery log and replay', () => {
  it('lists deliveries newest first a page at a time, and a replay is a new delivery of the same event', async () => {
    const company = await kit.createCompany();
    const { endpoint } = await register(company);
    for (let index = 0; index < 3; index += 1) await jobs.createJob(company.staff, { title: `Job ${index}`, signers: [] });
    const first = await kit.call(company.staff, 'GET', `/api/title-companies/webhooks/${endpoint.id}/deliveries?pageSize=2`);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ total: 3, page: 1, pageSize: 2 });
    expect(first.json().items).toHaveLength(2);
    expect(first.json().items[0]).toMatchObject({ eventType: 'job.created', status: 'pending', attempts: 0, responseStatus: null });
    const second = await kit.call(company.staff, 'GET', `/api/title-companies/webhooks/${endpoint.id}/deliveries?pageSize=2&page=2`);
    expect(second.json().items).toHaveLength(1);
    const badPage = await kit.call(company.staff, 'GET', `/api/title-companies/webhooks/${endpoint.id}/deliveries?pageSize=500`);
    expect(badPage.statusCode).toBe(400);

    const original = first.json().items[0] as { id: string; eventId: string };
    const replay = await kit.call(company.staff, 'POST', `/api/title-companies/webhooks/${endpoint.id}/deliveries/${original.id}/replay`);
    expect(replay.statusCode, replay.body).toBe(201);
    expect(replay.json().delivery).toMatchObject({ eventId: original.eventId, replayOf: original.id, status: 'pending', attempts: 0 });
    const [copy] = await t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, replay.json().delivery.id));
    const [source] = await t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, original.id));
    expect(copy?.body).toBe(source?.body);
    expect(
      await t.db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.action, 'webhook.replayed'))),
    ).not.toHaveLength(0);

    // A delivery of another endpoint cannot be replayed through this one.
    const { endpoint: otherEndpoint } = await register(company);
    const crossed = await kit.call(company.staff, 'POST', `/api/title-companies/webhooks/${otherEndpoint.id}/deliveries/${original.id}/replay`);
    expect(crossed.statusCode).toBe(404);
  });
});
