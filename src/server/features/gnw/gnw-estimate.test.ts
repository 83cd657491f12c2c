import { isNull } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { priceItems } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';
import { createJobKit, uniqueEmail } from '#test/job-fixtures.ts';

/**
 * POST /api/gnw/estimate (decision 051): the default prices counted for the person's acts, signers
 * and the witnesses the platform provides; the notarial fee apart from platform fees; the state's
 * cap with its citation; and no price at all when none is set.
 */

/** Many sign-ins and requests per test take longer than the default on a busy machine. */
const slow = { timeout: 120_000 };

let t: TestApp;
let kit: ReturnType<typeof createJobKit>;

const prices = [
  { key: 'first_seal', label: 'Notarial act', amountCents: 2500, unit: 'act', feeKind: 'notarial' },
  { key: 'platform', label: 'Platform fee', amountCents: 1000, unit: 'job', feeKind: 'platform' },
  { key: 'identity_check', label: 'Identity check', amountCents: 400, unit: 'signer', feeKind: 'platform' },
  { key: 'witness', label: 'Witness', amountCents: 1500, unit: 'witness', feeKind: 'platform' },
  { key: 'no_show', label: 'No-show', amountCents: 5000, unit: 'job', feeKind: 'platform' },
] as const;

async function setPrices(rows: ReadonlyArray<(typeof prices)[number]>) {
  await t.db.delete(priceItems).where(isNull(priceItems.companyId));
  if (rows.length) await t.db.insert(priceItems).values(rows.map((row, position) => ({ ...row, companyId: null, position })));
}

let address = 0;
/** Each test from a network of its own, so the per-network limit is tested alone. */
const estimate = (payload: unknown, headers: Record<string, string> = {}, remoteAddress = `10.1.0.${(address += 1)}`) =>
  t.app.inject({ method: 'POST', url: '/api/gnw/estimate', headers, payload: payload as Record<string, unknown>, remoteAddress });

beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createJobKit(t);
});
afterAll(async () => {
  await t?.close();
});
beforeEach(async () => {
  await setPrices(prices);
});

describe('an estimate from counts, signed out', () => {
  it('counts each price for 2 documents, 2 signers and 1 witness, leaves the no-show fee out, and shows the notarial fee apart', slow, async () => {
    const res = await estimate({ act: 'acknowledgment', signerState: 'VA', documents: 2, signers: 2, witnesses: 1 });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.lines).toEqual([
      { key: 'first_seal', label: 'Notarial act', unit: 'act', feeKind: 'notarial', quantity: 2, unitCents: 2500, amountCents: 5000 },
      { key: 'platform', label: 'Platform fee', unit: 'job', feeKind: 'platform', quantity: 1, unitCents: 1000, amountCents: 1000 },
      { key: 'identity_check', label: 'Identity check', unit: 'signer', feeKind: 'platform', quantity: 2, unitCents: 400, amountCents: 800 },
      { key: 'witness', label: 'Witness', unit: 'witness', feeKind: 'platform', quantity: 1, unitCents: 1500, amountCents: 1500 },
    ]);
    expect(body).toMatchObject({ notarialCents: 5000, platformCents: 3300, totalCents: 8300 });
    expect(body.cap).toEqual({
      state: 'VA',
      stateName: 'Virginia',
      perActCents: 2500,
      rule: 'Virginia allows at most $25 for each electronic notarial act',
      citation: 'Va. Code § 47.1-19(B)',
    });
    expect(body.notes).toEqual([
      'The notarial fee, the notary’s fee set by state law, is $50.00 for 2 notarial acts.',
      'Platform fees of $33.00 are apart from the notarial fee and are not a notary’s fee.',
      'Virginia allows at most $25 for each electronic notarial act (Va. Code § 47.1-19(B)); the notarial fee of $25.00 per act is within it.',
      'This is an estimate: $83.00 is held on your card, and once the notarization is complete you are charged what it cost, never more than the hold.',
    ]);
  });

  it('counts one document, one signer and no witness by default, with no witness line', slow, async () => {
    const res = await estimate({});
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().lines.map((line: { key: string; quantity: number }) => [line.key, line.quantity])).toEqual([
      ['first_seal', 1],
      ['platform', 1],
      ['identity_check', 1],
    ]);
    expect(res.json()).toMatchObject({ totalCents: 3900, cap: null });
    expect(res.json().notes).toContain('Choose the state you are in to see its notarial fee cap.');
  });

  it('claims no cap for a state without a recorded one', slow, async () => {
    const res = await estimate({ signerState: 'OH' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().cap).toBeNull();
    expect(res.json().notes).toContain('No notarial fee cap for Ohio is recorded here.');
    expect(res.json().notes.join(' ')).not.toMatch(/allows at most/);
  });

  it('says witnesses cost nothing extra when the prices have no witness item', slow, async () => {
    await setPrices(prices.filter((price) => price.key !== 'witness'));
    const res = await estimate({ witnesses: 2, signerState: 'TX' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().notes).toContain('The witnesses the platform provides cost nothing extra.');
    expect(res.json().cap).toMatchObject({ state: 'TX', perActCents: 3500, citation: 'Tex. Gov’t Code § 406.111; § 406.024(a)(5)-(6)' });
  });
});

describe('no prices set', () => {
  it('answers 409 prices_not_set with a sentence instead of a $0 estimate', slow, async () => {
    await setPrices([]);
    const res = await estimate({ signerState: 'VA' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({
      error: 'prices_not_set',
      message: 'Prices for Notarize Now are not set yet, so we cannot tell you what it costs or take a payment. Please try again later.',
    });
  });

  it('does not count a no-show price alone as a price list', slow, async () => {
    await setPrices(prices.filter((price) => price.key === 'no_show'));
    const res = await estimate({});
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toBe('prices_not_set');
  });
});

describe('an estimate of the person’s own job', () => {
  it('counts the job’s signing documents, signers and the witnesses asked for, whatever counts are sent', slow, async () => {
    const person = await t.createUser({ roles: ['signer'], name: 'Pat Person' });
    const headers = await kit.headersFor(person);
    const created = await kit.call(person, 'POST', '/api/gnw/jobs', {});
    expect(created.statusCode, created.body).toBe(201);
    const jobId = created.json().jobId as string;
    await kit.uploadPdf(person, jobId);
    await kit.uploadPdf(person, jobId);
    const put = await t.app.inject({
      method: 'PUT',
      url: `/api/gnw/jobs/${jobId}`,
      headers,
      payload: { signerState: 'FL', witnessesRequested: 2, otherSigners: [{ name: 'Olive Other', email: uniqueEmail('olive') }] },
    });
    expect(put.statusCode, put.body).toBe(200);

    const res = await estimate({ jobId, documents: 9, signers: 9, witnesses: 0 }, headers);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().lines.map((line: { key: string; quantity: number }) => [line.key, line.quantity])).toEqual([
      ['first_seal', 2],
      ['platform', 1],
      ['identity_check', 2],
      ['witness', 2],
    ]);
    expect(res.json()).toMatchObject({ totalCents: 5000 + 1000 + 800 + 3000, cap: { state: 'FL', citation: 'Fla. Stat. § 117.275' } });
    // The job's own estimate, as its page reads it, is the same.
    expect((await kit.call(person, 'GET', `/api/gnw/jobs/${jobId}`)).json().estimate).toEqual(res.json());
  });

  it('refuses another person’s job as not found, and a signed-out caller naming a job with 401', slow, async () => {
    const owner = await t.createUser({ roles: ['signer'] });
    const created = await kit.call(owner, 'POST', '/api/gnw/jobs', {});
    const jobId = created.json().jobId as string;
    const stranger = await t.createUser({ roles: ['signer'] });
    const res = await estimate({ jobId }, await kit.headersFor(stranger));
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'not_found', message: 'No Notarize Now request of yours has that job id.' });
    const admin = await t.createUser({ roles: ['admin'] });
    expect((await estimate({ jobId }, await kit.headersFor(admin))).statusCode).toBe(404);
    const anonymous = await estimate({ jobId });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toEqual({ error: 'unauthorized', message: 'Sign in to see the estimate of your notarization.' });
  });
});

describe('bad input', () => {
  it.each([
    [{ witnesses: 5 }, 'witnesses', 'witnesses must be 0, 1 or 2.'],
    [{ signers: 0 }, 'signers', 'signers must be a number from 1 to 10.'],
    [{ documents: 21 }, 'documents', 'documents must be a number from 1 to 20.'],
    [{ signerState: 'ZZ' }, 'signerState', 'Choose the state you are in.'],
    [{ jobId: 'not-a-job\u0000' }, 'jobId', 'jobId must be a job id.'],
    [{ act: 'wedding' }, 'act', 'Choose a notarization type.'],
    [{ surprise: true }, null, null],
  ])('refuses %j with 400 and a sentence', slow, async (payload, path, message) => {
    const res = await estimate(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message: message ?? expect.stringMatching(/\w{3,}.*\w/) });
    if (path) expect(res.json().detail[0].path).toBe(path);
  });

  it('refuses a body that is not JSON, and a huge one, with sentences', slow, async () => {
    const broken = await t.app.inject({ method: 'POST', url: '/api/gnw/estimate', headers: { 'content-type': 'application/json' }, payload: '{"signers": ' });
    expect(broken.statusCode).toBe(400);
    expect(broken.json()).toMatchObject({ error: 'invalid_json', message: 'The request body is not valid JSON.' });
    const huge = await t.app.inject({
      method: 'POST',
      url: '/api/gnw/estimate',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ act: 'a'.repeat(3_000_000) }),
    });
    expect(huge.statusCode).toBe(413);
    expect(huge.json()).toMatchObject({ error: 'payload_too_large', message: expect.stringContaining('too large') });
  });
});

describe('the rate limit', () => {
  it('answers 429 with the wait after 120 estimates a minute from one network; another network is not held up', slow, async () => {
    let last = null;
    for (let count = 0; count < 121; count += 1) last = await estimate({}, {}, '10.9.9.9');
    expect(last?.statusCode).toBe(429);
    expect(last?.json()).toMatchObject({
      error: 'rate_limited',
      message: expect.stringMatching(/^Too many estimates from this network\. Please wait \d+ seconds and try again\.$/),
    });
    expect((await estimate({}, {}, '10.9.9.10')).statusCode).toBe(200);
  });
});
