import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookDeliveries } from '#server/db/schema/index.ts';
import { createCompanyKit } from '#test/company-fixtures.ts';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';
import { createJobKit, uniqueEmail } from '#test/job-fixtures.ts';
import { createNotary } from '#test/notary-fixtures.ts';
import { resolveWebhookTarget } from './webhook-address.ts';

const strict = { isHttpAllowed: false, isPrivateAllowed: false };

describe('attack round 1: webhook addresses written to hide a private one', () => {
  it.each([
    'https://2130706433/hook', // decimal 127.0.0.1
    'https://0177.0.0.1/hook', // octal
    'https://0x7f.1/hook', // hex, short form
    'https://127.1/hook',
    'https://0.0.0.0/hook',
    'https://0/hook',
    'https://[::]/hook',
    'https://[::ffff:7f00:1]/hook',
    'https://[0:0:0:0:0:ffff:a9fe:a9fe]/hook', // metadata, mapped
    'https://[::127.0.0.1]/hook', // IPv4-compatible
    'https://[64:ff9b::7f00:1]/hook', // NAT64
    'https://[fe80::1]/hook',
    'https://localhost./hook',
  ])('refuses %s', async (url) => {
    await expect(resolveWebhookTarget(url, strict)).rejects.toThrow(/non-public|could not be found/);
  });
});

let t: TestApp;
let kit: ReturnType<typeof createCompanyKit>;
let jobs: ReturnType<typeof createJobKit>;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createCompanyKit(t);
  jobs = createJobKit(t);
});
afterAll(async () => t?.close());

describe('attack round 1: a closed company', () => {
  it('queues no more events for the endpoints of a company an administrator closed', async () => {
    const company = await kit.createCompany();
    const registered = await kit.call(company.staff, 'POST', `/api/title-companies/${company.id}/webhooks`, {
      url: 'https://93.184.215.14/hooks/open-ron',
      events: ['participant.invited'],
    });
    expect(registered.statusCode, registered.body).toBe(201);
    const endpointId = (registered.json() as { endpoint: { id: string } }).endpoint.id;
    const notary = await createNotary(t);
    const job = await jobs.createJob(company.agent, { notaryId: notary.id, signers: [{ name: 'Sam Signer', email: uniqueEmail('signer') }] });

    const admin = await t.createUser({ roles: ['admin'] });
    const closed = await kit.call(admin, 'DELETE', `/api/title-companies/${company.id}`);
    expect(closed.statusCode, closed.body).toBe(200);
    const before = await t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId));

    // The job lives on with its notary, who adds a signer.
    const added = await jobs.call(notary, 'POST', `/api/jobs/${job.id}/signers`, { name: 'Wes Witness', email: uniqueEmail('witness'), role: 'witness' });
    expect(added.statusCode, added.body).toBe(201);

    const after = await t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId));
    // Found: a participant.invited delivery is queued (and the sender would send it) to the closed company.
    expect(after.map((row) => row.eventType)).toEqual(before.map((row) => row.eventType));
  });
});
