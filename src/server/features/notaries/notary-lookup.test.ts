import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '#shared/roles.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createNotary as createNotaryFixture } from '#test/notary-fixtures.ts';

let t: TestApp;
let agentHeaders: Record<string, string>;
// Names unique to this file's run, so the searches below see only these notaries.
const tag = randomUUID().slice(0, 6);
let nora: TestUser;
let otto: TestUser;

const createNotary = (
  name: string,
  profile: { state: string; county: string; approvalStatus?: 'approved' | 'pending' },
  status: 'active' | 'disabled' = 'active',
) => createNotaryFixture(t, { name, status, state: profile.state, county: profile.county, approvalStatus: profile.approvalStatus ?? 'approved' });

const lookup = (query: string, headers = agentHeaders) => t.app.inject({ method: 'GET', url: `/api/notary/lookup?${query}`, headers });
const namesOf = (body: { items: Array<{ name: string }> }) => body.items.map((item) => item.name);

beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  agentHeaders = await t.signInAs(await t.createUser({ roles: ['title_agent'] }));
  nora = await createNotary(`Nora ${tag} Quill`, { state: 'VA', county: 'Fairfax' });
  otto = await createNotary(`Otto ${tag} Reed`, { state: 'TX', county: 'Travis' });
  await createNotary(`Penny ${tag} Pending`, { state: 'VA', county: 'Fairfax', approvalStatus: 'pending' });
  await createNotary(`Dora ${tag} Disabled`, { state: 'VA', county: 'Fairfax' }, 'disabled');
});
afterAll(async () => t?.close());

describe('GET /api/notary/lookup', () => {
  it('tells the job creator which notaries are online now, by the availability rule (switch on, heartbeat within 90 s)', async () => {
    const noraHeaders = await t.signInAs(nora);
    const online = await t.app.inject({
      method: 'POST',
      url: '/api/notary-availability/toggle',
      headers: noraHeaders,
      payload: { is_available: true, session_id: 'lookup-browser-1' },
    });
    expect(online.statusCode, online.body).toBe(200);
    try {
      const res = await lookup(`q=${tag}`);
      expect(res.json().items.map((item: { name: string; isOnline: boolean }) => [item.name, item.isOnline])).toEqual([
        [nora.name, true],
        [otto.name, false],
      ]);
    } finally {
      await t.app.inject({ method: 'POST', url: '/api/notary-availability/toggle', headers: noraHeaders, payload: { is_available: false } });
    }
  });

  it('finds a notary by part of their name and returns their name, commission state and county', async () => {
    const res = await lookup(`q=${encodeURIComponent(`nora ${tag}`)}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ items: [{ userId: nora.id, name: nora.name, commissionState: 'VA', county: 'Fairfax', isOnline: false }] });
  });

  it('finds notaries by county and by commission state, in any letter case', async () => {
    expect(namesOf((await lookup(`q=travis ${tag}`)).json())).toEqual([otto.name]);
    expect(namesOf((await lookup(`q=${tag} tx`)).json())).toEqual([otto.name]);
    expect(namesOf((await lookup(`q=${tag} va`)).json())).toEqual([nora.name]);
  });

  it('finds notaries by the full name of their commission state, or its beginning, as the picker shows it', async () => {
    expect(namesOf((await lookup(`q=${encodeURIComponent(`${tag} virginia`)}`)).json())).toEqual([nora.name]);
    expect(namesOf((await lookup(`q=${encodeURIComponent(`${tag} Tex`)}`)).json())).toEqual([otto.name]);
    expect(namesOf((await lookup(`q=${encodeURIComponent(`${tag} west virginia`)}`)).json())).toEqual([]);
  });

  it('matches every word of the search: a county that is not the notary’s finds no one', async () => {
    expect((await lookup(`q=${tag} otto fairfax`)).json()).toEqual({ items: [] });
  });

  it('lists only approved, active notaries: pending and disabled accounts are never offered', async () => {
    expect(namesOf((await lookup(`q=${tag}`)).json())).toEqual([nora.name, otto.name]);
  });

  it('returns at most `limit` notaries, ordered by name', async () => {
    expect(namesOf((await lookup(`q=${tag}&limit=1`)).json())).toEqual([nora.name]);
  });

  it('treats % and _ in the search as plain characters', async () => {
    expect((await lookup(`q=${encodeURIComponent(`${tag}%`)}`)).json()).toEqual({ items: [] });
  });

  it('refuses a limit outside 1 to 50 with a sentence', async () => {
    const res = await lookup('limit=500');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message: 'Ask for 1 to 50 notaries.' });
  });

  it('refuses a search longer than 100 characters, or given twice, with a sentence', async () => {
    for (const query of [`q=${'a'.repeat(101)}`, 'q=nora&q=otto']) {
      const res = await lookup(query);
      expect(res.statusCode, query).toBe(400);
      expect(res.json(), query).toMatchObject({ error: 'validation_failed', message: 'Search with at most 100 characters.' });
    }
  });

  it('refuses a search with a NUL or another control character with a sentence, not a 500', async () => {
    for (const query of ['q=no%00ra', 'q=no%0Ara', 'q=%E2%80%AEnora']) {
      const res = await lookup(query);
      expect(res.statusCode, query).toBe(400);
      expect(res.json(), query).toMatchObject({
        error: 'validation_failed',
        message: 'Search with one line of text, without control characters or text-direction overrides.',
      });
    }
  });

  it('is for the people who create jobs: signed-out callers get 401, witnesses, observers and billing staff 403', async () => {
    const signedOut = await t.app.inject({ method: 'GET', url: '/api/notary/lookup' });
    expect(signedOut.statusCode).toBe(401);
    for (const role of ['witness', 'observer', 'billing'] as Role[]) {
      const res = await lookup('q=a', await t.signInAs(await t.createUser({ roles: [role] })));
      expect(res.statusCode, role).toBe(403);
      expect(res.json()).toMatchObject({ error: 'forbidden', message: expect.any(String) });
    }
    for (const role of ['admin', 'title', 'notary', 'signer'] as Role[]) {
      expect((await lookup(`q=${tag}`, await t.signInAs(await t.createUser({ roles: [role] })))).statusCode, role).toBe(200);
    }
  });

  it('refuses an account that still awaits approval', async () => {
    const pending = await t.createUser({ roles: ['notary'], status: 'pending' });
    const res = await lookup('q=a', await t.signInAs(pending));
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ error: 'pending_approval', message: expect.any(String) });
  });
});
