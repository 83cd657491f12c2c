import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueBootstrapInvite } from '#server/features/invites/invites.service.ts';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';
import { currentCode } from '#test/totp-codes.ts';

/**
 * Registration and the first administrator's claim must not hand a full session to a role that
 * must pass a second factor (MFA_REQUIRED_ROLES): they get the same pending session sign-in gives.
 */
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({
    MFA_REQUIRED_ROLES: 'notary,admin,title',
    REGISTRATIONS_PER_ADDRESS_PER_HOUR: '10000',
    LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000',
  });
});
afterAll(async () => t?.close());

let counter = 0;
const newEmail = (label: string) => `${label}-${(counter += 1)}-${Date.now()}@example.test`;
const password = 'correct horse battery';
const notaryFields = { commissionState: 'TX', commissionNumber: 'C-123', commissionExpiresOn: '2031-06-30', county: 'Travis' };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function request(method: InjectOptions['method'], url: string, headers: Record<string, string> = {}, payload?: unknown) {
  return t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }) });
}

const register = (kind: 'user' | 'notary' | 'title-company', payload: Record<string, unknown>) => request('POST', `/api/auth/register/${kind}`, {}, payload);

/** The answer of a registration or claim that may only set up and pass a second factor. */
function expectPendingSecondFactor(res: LightMyRequestResponse, extra: Record<string, unknown>) {
  expect(res.statusCode).toBe(201);
  const body = res.json();
  expect(body).toEqual({
    user: null,
    sessionToken: null,
    mfa_required: true,
    enrolled: false,
    twofaRequired: false,
    ticket: expect.any(String),
    nextAction: null,
    message: expect.any(String),
    ...extra,
  });
  expect(res.cookies.find((cookie) => cookie.name === 'ron_session')?.value).toBe(body.ticket);
  return body.ticket as string;
}

/** The pending session may read MFA status and nothing else of the product. */
async function expectOnlySecondFactorRoutes(ticket: string, otherUrl: string) {
  for (const headers of [bearer(ticket), { cookie: `ron_session=${ticket}` }]) {
    for (const url of ['/api/auth/me', otherUrl]) {
      const refused = await request('GET', url, headers);
      expect(refused.statusCode, url).toBe(401);
      expect(refused.json(), url).toEqual({ error: 'mfa_required', message: 'Finish signing in with your second factor first.' });
    }
    const status = await request('GET', '/api/auth/mfa/status', headers);
    expect(status.statusCode).toBe(200);
    expect(status.json()).toMatchObject({ enrolled: false, totpEnabled: false, required: true });
  }
}

/** Links an authenticator with the pending session; the linking code completes the sign-in. */
async function finishWithAuthenticator(ticket: string): Promise<string> {
  const start = await request('POST', '/api/auth/mfa/totp/setup/start', bearer(ticket));
  expect(start.statusCode).toBe(200);
  const secret = start.json().secret as string;
  const verify = await request('POST', '/api/auth/mfa/totp/setup/verify', bearer(ticket), { token: currentCode(secret), rememberDevice: false });
  expect(verify.statusCode).toBe(200);
  return verify.json().completedSignIn.sessionToken as string;
}

describe('registration of a role that must use a second factor', () => {
  it('gives a registering notary a session that can only set up a second factor, then a full one once it is linked', async () => {
    const email = newEmail('notary');
    const res = await register('notary', { name: 'Nora Notary', email, password, ...notaryFields });
    const ticket = expectPendingSecondFactor(res, { pendingApproval: true });
    expect(res.json().message).toMatch(/pending approval/);
    await expectOnlySecondFactorRoutes(ticket, '/api/notary/pending');

    const full = await finishWithAuthenticator(ticket);
    const me = await request('GET', '/api/auth/me', bearer(full));
    expect(me.statusCode).toBe(200);
    expect(me.json().user).toMatchObject({ email, roles: ['notary'], status: 'pending', pendingApproval: 'notary' });
  });

  it('does the same for a title company owner when the title role is listed in MFA_REQUIRED_ROLES', async () => {
    const res = await register('title-company', { name: 'Tom Title', email: newEmail('title'), password, companyName: 'Acme Title' });
    const ticket = expectPendingSecondFactor(res, { pendingApproval: true });
    await expectOnlySecondFactorRoutes(ticket, '/api/jobs');
  });

  it('signs a registering signer in fully, since the signer role is not listed', async () => {
    const email = newEmail('signer');
    const res = await register('user', { name: 'Sam Signer', email, password });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({
      user: { email, roles: ['signer'] },
      sessionToken: expect.any(String),
      mfa_required: false,
      ticket: null,
      pendingApproval: false,
    });
    expect((await request('GET', '/api/auth/me', bearer(body.sessionToken))).statusCode).toBe(200);
  });
});

describe('the first administrator claim', () => {
  it('gives the new administrator a session that can only set up a second factor, then a full one once it is linked', async () => {
    const issued = await issueBootstrapInvite(t.db, t.config.publicUrl);
    if (!issued) throw new Error('expected a bootstrap invite on a database without administrators');
    const token = issued.url.split('/claim/')[1] ?? '';
    const email = newEmail('admin');
    const res = await request('POST', `/api/invites/${token}/claim`, {}, { name: 'Ada Admin', email, password });
    const ticket = expectPendingSecondFactor(res, { pendingApproval: false });
    await expectOnlySecondFactorRoutes(ticket, '/api/notary/pending');

    const full = await finishWithAuthenticator(ticket);
    const pendingNotaries = await request('GET', '/api/notary/pending', bearer(full));
    expect(pendingNotaries.statusCode).toBe(200);
  });
});
