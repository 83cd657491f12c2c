import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { roles, type Role } from '#shared/roles.ts';
import { payments } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createPaymentKit } from '#test/payment-fixtures.ts';
import { startStripeStandIn, stripeStandInEnv, type StripeStandIn } from '#test/stripe-stand-in.ts';

/**
 * The payment routes attacked: every other role, other people's jobs, forged sessions, and bodies
 * that would be refused, all turned away before the body is read and before Stripe is called.
 */

let t: TestApp;
let stripe: StripeStandIn;
let kit: Awaited<ReturnType<typeof createPaymentKit>>;
const people = {} as Record<Role, TestUser>;

beforeAll(async () => {
  stripe = await startStripeStandIn();
  t = await createTestApp(
    stripeStandInEnv(stripe, {
      LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000',
    }),
  );
  kit = await createPaymentKit(t);
  for (const role of roles) people[role] = await t.createUser({ roles: [role], name: `${role} person` });
});
afterAll(async () => {
  await t?.close();
  await stripe?.close();
});

type Method = 'GET' | 'POST';

/** A request with a raw body, as a browser or a script could send it. */
async function raw(user: TestUser | null, method: Method, url: string, body?: string) {
  const headers = user ? await t.headersFor(user) : {};
  return t.app.inject({
    method,
    url,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: body }),
  });
}

function expectRefusal(res: { statusCode: number; body: string }, status: number, label: string) {
  expect(res.statusCode, `${label}: ${res.body}`).toBe(status);
  const body = JSON.parse(res.body) as { error?: unknown; message?: unknown };
  expect(typeof body.error, label).toBe('string');
  expect(typeof body.message, label).toBe('string');
}

const broken = '{"paymentMethod": ';
const huge = JSON.stringify({ paymentMethod: `pm_${'x'.repeat(2 * 1024 * 1024)}` });

describe('who may pay, see and settle', () => {
  it('refuses every role that may not, anonymous and forged sessions, before the body is read, and calls Stripe for none of them', async () => {
    const job = await kit.bookJob();
    const callsBefore = stripe.calls.length;
    const hold = `/api/jobs/${job.id}/payment/hold`;
    const read = `/api/jobs/${job.id}/payment`;
    const sync = `/api/jobs/${job.id}/payment/sync`;
    for (const role of ['billing', 'finance', 'observer', 'witness'] as const) {
      expectRefusal(await raw(people[role], 'POST', hold, broken), 403, `${role} broken hold`);
      expectRefusal(await raw(people[role], 'POST', hold, huge), 403, `${role} 2 MB hold`);
    }
    for (const role of ['observer', 'witness'] as const) expectRefusal(await raw(people[role], 'GET', read), 403, `${role} read`);
    for (const role of ['title', 'title_agent', 'notary', 'signer', 'observer', 'witness'] as const) {
      expectRefusal(await raw(people[role], 'POST', sync), 403, `${role} sync`);
    }
    for (const [method, url, body] of [
      ['POST', hold, broken],
      ['GET', read, undefined],
      ['POST', sync, undefined],
    ] as const) {
      expectRefusal(await raw(null, method, url, body), 401, `anonymous ${method} ${url}`);
      const forged = await t.app.inject({ method, url, headers: { authorization: `Bearer ${randomUUID()}` } });
      expectRefusal(forged, 401, `forged ${method} ${url}`);
    }
    expectRefusal(await raw(null, 'GET', '/api/payments/config'), 401, 'anonymous config');
    expect(stripe.calls.length).toBe(callsBefore);
    expect(await t.db.select().from(payments)).toEqual([]);
  });

  it('answers 404 for someone else’s job and 403 to people on the job who may not pay, before its body is read', async () => {
    const job = await kit.bookJob();
    const hold = `/api/jobs/${job.id}/payment/hold`;
    const otherCompany = await kit.companies.createCompany({ name: 'Other Title' });
    const callsBefore = stripe.calls.length;
    // Not on the job at all: nothing tells them it exists.
    for (const [label, user] of [
      ['another company’s title staff', otherCompany.staff],
      ['another company’s agent', otherCompany.agent],
      ['a signer of no job', people.signer],
      ['a notary of no job', people.notary],
      ['an administrator who did not create it', people.admin],
    ] as const) {
      const res = await raw(user, 'POST', hold, broken);
      if (label.startsWith('an administrator')) expectRefusal(res, 403, label);
      else {
        expectRefusal(res, 404, label);
        expect(res.json().message, label).toBe('No job with that id, or you may not see its payment.');
      }
    }
    // On the job, but neither its creator nor its company's title staff.
    for (const [label, user] of [
      ['the job’s notary', kit.notary],
      ['the company’s agent', kit.company.agent],
    ] as const) {
      const res = await raw(user, 'POST', hold, broken);
      expectRefusal(res, 403, label);
      expect(res.json().message, label).toBe('Only the job’s creator or its title company’s title staff may pay for it.');
    }
    for (const id of [randomUUID(), 'not-a-uuid', '00000000-0000-0000-0000-000000000000']) {
      expectRefusal(await raw(kit.company.staff, 'POST', `/api/jobs/${id}/payment/hold`, broken), 404, `job ${id}`);
    }
    expect(stripe.calls.length).toBe(callsBefore);
    expect(await t.db.select().from(payments)).toEqual([]);
  });

  it('lets the job’s creator and its company’s title staff pay, and shows the payment to them, administrators, billing and finance only', async () => {
    const agentsJob = await kit.bookJob(kit.company.agent);
    const byCreator = await kit.hold(kit.company.agent, agentsJob.id);
    expect(byCreator.statusCode, byCreator.body).toBe(201);
    const staffsJob = await kit.bookJob(kit.company.agent);
    expect((await kit.hold(kit.company.staff, staffsJob.id)).statusCode).toBe(201);
    const read = `/api/jobs/${agentsJob.id}/payment`;
    for (const user of [kit.company.agent, kit.company.staff, people.admin, people.billing, people.finance]) {
      const res = await raw(user, 'GET', read);
      expect(res.statusCode, `${user.name}: ${res.body}`).toBe(200);
      expect(res.json().current.status).toBe('held');
    }
    expectRefusal(await raw(kit.notary, 'GET', read), 403, 'the job’s notary');
    expectRefusal(await raw((await kit.companies.createCompany()).staff, 'GET', read), 404, 'another company’s staff');
    expectRefusal(await raw(people.signer, 'GET', read), 404, 'a signer of no job');
  });
});
