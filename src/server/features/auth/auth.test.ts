import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

describe('POST /api/auth/login', () => {
  it('signs a user in and returns the SPEC section 3 fields with a session cookie', async () => {
    const user = await t.createUser({ roles: ['signer'] });
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: user.email.toUpperCase(), password: user.password } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      user: { id: user.id, email: user.email, roles: ['signer'], role: 'signer', name: user.name, fullName: user.name },
      sessionToken: expect.any(String),
      mfa_required: false,
      enrolled: false,
      twofaRequired: false,
      ticket: null,
      nextAction: null,
    });
    expect(body.user).not.toHaveProperty('passwordHash');
    const cookie = res.cookies.find((c) => c.name === 'ron_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(cookie?.value).toBe(body.sessionToken);
  });

  it('answers a wrong password and an unknown account with the same 401', async () => {
    const user = await t.createUser();
    const wrong = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: user.email, password: 'not-the-password' } });
    const unknown = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: 'nobody@example.test', password: 'whatever1' } });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json()).toEqual(unknown.json());
    expect(wrong.json()).toEqual({ error: 'invalid_credentials', message: 'Invalid email or password.' });
  });
});
