import { describe, expect, it } from 'vitest';
import type { NextAction } from './auth.ts';
import {
  decideAuthenticatedPath,
  decidePostLogin,
  getSafeNextPath,
  isSafeNextPath,
  isSessionPath,
  getSignInToAcceptPath,
  readLoginQuery,
  type InstantNotaryState,
  type PostLoginInput,
} from './auth-routing.ts';
import { elevatedRoles } from './roles.ts';

const signer = { roles: ['signer'] };
const noInstantJob: InstantNotaryState = { isFreshStart: false, activeJobId: null };
const activeInstantJob: InstantNotaryState = { isFreshStart: false, activeJobId: 'gnw-job-1' };

function nextAction(overrides: Partial<NextAction>): NextAction {
  return { nextAction: null, jobId: null, pendingSetup: null, startWith: null, route: null, ...overrides };
}

function loginInput(
  overrides: { response?: Partial<PostLoginInput['response']>; next?: string | null; instantNotary?: InstantNotaryState } = {},
): PostLoginInput {
  return {
    response: { user: signer, mfa_required: false, enrolled: false, twofaRequired: false, ticket: null, nextAction: null, ...overrides.response },
    next: overrides.next ?? null,
    instantNotary: overrides.instantNotary ?? noInstantJob,
  };
}

describe('decidePostLogin', () => {
  it('sends a person whose authenticator is enrolled to MFA verification', () => {
    expect(decidePostLogin(loginInput({ response: { mfa_required: true, enrolled: true } }))).toEqual({ kind: 'mfa', path: '/mfa/verify' });
  });

  it('sends a person who must use MFA but has not enrolled to MFA setup', () => {
    expect(decidePostLogin(loginInput({ response: { mfa_required: true, enrolled: false } }))).toEqual({ kind: 'mfa', path: '/mfa/setup' });
  });

  it('puts MFA before a 2FA ticket and before any next path', () => {
    const decision = decidePostLogin(loginInput({ response: { mfa_required: true, enrolled: true, twofaRequired: true, ticket: 't-1' }, next: '/help' }));
    expect(decision).toEqual({ kind: 'mfa', path: '/mfa/verify' });
  });

  it('asks for the 2FA code when the server hands out a ticket', () => {
    expect(decidePostLogin(loginInput({ response: { twofaRequired: true, ticket: 'ticket-42' }, next: '/help' }))).toEqual({
      kind: 'two-factor',
      ticket: 'ticket-42',
    });
  });

  it('does not open the 2FA step without a ticket and navigates instead', () => {
    expect(decidePostLogin(loginInput({ response: { twofaRequired: true, ticket: null } }))).toEqual({
      kind: 'navigate',
      path: '/dashboard',
      clearInstantNotaryJob: false,
    });
  });

  it('navigates an authenticated person to the safe next path', () => {
    expect(decidePostLogin(loginInput({ next: '/jobs/detail?id=7' }))).toEqual({ kind: 'navigate', path: '/jobs/detail?id=7', clearInstantNotaryJob: false });
  });

  it('navigates to the dashboard when the response carries no user', () => {
    expect(decidePostLogin(loginInput({ response: { user: null } }))).toEqual({ kind: 'navigate', path: '/dashboard', clearInstantNotaryJob: false });
  });
});

describe('decideAuthenticatedPath for elevated roles', () => {
  it.each(elevatedRoles.map((role) => [role]))('sends a %s to the safe next path, skipping every instant-notary rule', (role) => {
    const result = decideAuthenticatedPath(
      { roles: [role] },
      '/billing/pending',
      nextAction({ nextAction: 'gnw-setup', jobId: 'j1', pendingSetup: { jobId: 'j2', start: 'id' }, route: '/help' }),
      { isFreshStart: true, activeJobId: 'gnw-job-1' },
    );
    expect(result).toEqual({ path: '/billing/pending', clearInstantNotaryJob: false });
  });

  it.each(elevatedRoles.map((role) => [role]))('sends a %s without a next path to the dashboard, not to the server route', (role) => {
    expect(decideAuthenticatedPath({ roles: [role] }, null, nextAction({ route: '/help' }), activeInstantJob)).toEqual({
      path: '/dashboard',
      clearInstantNotaryJob: false,
    });
  });

  it('treats a user holding an elevated role among others as elevated', () => {
    expect(decideAuthenticatedPath({ roles: ['signer', 'observer'] }, null, nextAction({ nextAction: 'gnw-setup', jobId: 'j1' }), noInstantJob).path).toBe(
      '/dashboard',
    );
  });

  it('reads the single `role` field as well as the roles list', () => {
    expect(decideAuthenticatedPath({ role: 'notary' }, null, null, activeInstantJob).path).toBe('/dashboard');
  });

  it.each(['/session', '/session/job-1', '/signing/job-1/doc-2', '//evil.example', 'https://evil.example'])('never sends an elevated user to %s', (next) => {
    expect(decideAuthenticatedPath({ roles: ['admin'] }, next, null, noInstantJob).path).toBe('/dashboard');
  });
});

describe('decideAuthenticatedPath for signers and other non-elevated users', () => {
  it('clears the instant-notary job when the fresh-start flag is set', () => {
    const result = decideAuthenticatedPath(signer, null, null, { isFreshStart: true, activeJobId: 'gnw-job-1' });
    expect(result).toEqual({ path: '/dashboard', clearInstantNotaryJob: true });
  });

  it('keeps the instant-notary job when there is no fresh start', () => {
    expect(decideAuthenticatedPath(signer, '/help', null, activeInstantJob).clearInstantNotaryJob).toBe(false);
  });

  it('sends nextAction gnw-setup with a job id to /gnw/setup with that job, escaped', () => {
    const result = decideAuthenticatedPath(signer, '/help', nextAction({ nextAction: 'gnw-setup', jobId: 'job 1&x=2' }), activeInstantJob);
    expect(result).toEqual({ path: '/gnw/setup?jobId=job%201%26x%3D2', clearInstantNotaryJob: false });
  });

  it('reports the fresh-start clearing together with the gnw-setup target', () => {
    const result = decideAuthenticatedPath(signer, null, nextAction({ nextAction: 'gnw-setup', jobId: 'j9' }), { isFreshStart: true, activeJobId: 'old' });
    expect(result).toEqual({ path: '/gnw/setup?jobId=j9', clearInstantNotaryJob: true });
  });

  it('ignores gnw-setup without a job id', () => {
    expect(decideAuthenticatedPath(signer, null, nextAction({ nextAction: 'gnw-setup', jobId: null }), noInstantJob).path).toBe('/dashboard');
  });

  it('sends a pending setup to /setup with its job id and start value', () => {
    const result = decideAuthenticatedPath(signer, '/help', nextAction({ pendingSetup: { jobId: 'job-5', start: 'kba' } }), activeInstantJob);
    expect(result.path).toBe('/setup?jobId=job-5&start=kba');
  });

  it('leaves out start when the pending setup has none', () => {
    expect(decideAuthenticatedPath(signer, null, nextAction({ pendingSetup: { jobId: 'job-5', start: null } }), noInstantJob).path).toBe('/setup?jobId=job-5');
  });

  it('prefers gnw-setup over a pending setup', () => {
    const action = nextAction({ nextAction: 'gnw-setup', jobId: 'a', pendingSetup: { jobId: 'b', start: null } });
    expect(decideAuthenticatedPath(signer, null, action, noInstantJob).path).toBe('/gnw/setup?jobId=a');
  });

  it('resumes an active instant-notary job at /gnw/start when there is no next path', () => {
    expect(decideAuthenticatedPath(signer, null, nextAction({ route: '/help' }), activeInstantJob)).toEqual({
      path: '/gnw/start',
      clearInstantNotaryJob: false,
    });
  });

  it('resumes an active instant-notary job at /gnw/start when next is /gnw-login', () => {
    expect(decideAuthenticatedPath(signer, '/gnw-login', null, activeInstantJob).path).toBe('/gnw/start');
  });

  it('resumes an active instant-notary job at /gnw/start when next is unsafe and so ignored', () => {
    expect(decideAuthenticatedPath(signer, 'https://evil.example', null, activeInstantJob).path).toBe('/gnw/start');
    expect(decideAuthenticatedPath(signer, '/session/job-1', null, activeInstantJob).path).toBe('/gnw/start');
  });

  it('follows a safe next path even while an instant-notary job is active', () => {
    expect(decideAuthenticatedPath(signer, '/help', null, activeInstantJob).path).toBe('/help');
  });

  it('does not resume an instant-notary job that a fresh start cleared', () => {
    expect(decideAuthenticatedPath(signer, null, null, { isFreshStart: true, activeJobId: 'gnw-job-1' }).path).toBe('/dashboard');
  });

  it('uses the safe next path before the server route', () => {
    expect(decideAuthenticatedPath(signer, '/help', nextAction({ route: '/jobs/detail' }), noInstantJob).path).toBe('/help');
  });

  it('uses the server route when there is no next path', () => {
    expect(decideAuthenticatedPath(signer, null, nextAction({ route: '/jobs/detail' }), noInstantJob).path).toBe('/jobs/detail');
  });

  it('uses the server route when the next path is unsafe', () => {
    expect(decideAuthenticatedPath(signer, '//evil.example', nextAction({ route: '/jobs/detail' }), noInstantJob).path).toBe('/jobs/detail');
  });

  it.each(['/session/job-1', '/signing', 'https://evil.example/x', '//evil.example'])(
    'filters a server route of %s and falls back to the dashboard',
    (route) => {
      expect(decideAuthenticatedPath(signer, null, nextAction({ route }), noInstantJob).path).toBe('/dashboard');
    },
  );

  it('falls back to the dashboard with nothing else to go on', () => {
    expect(decideAuthenticatedPath(signer, null, null, noInstantJob)).toEqual({ path: '/dashboard', clearInstantNotaryJob: false });
  });

  it('falls back to the dashboard for a user with no roles at all', () => {
    expect(decideAuthenticatedPath({ roles: [] }, null, null, noInstantJob).path).toBe('/dashboard');
    expect(decideAuthenticatedPath(null, null, null, noInstantJob).path).toBe('/dashboard');
  });

  it('follows the server’s gnw-setup answer after login, as the login call sends it, before an active job and a next path', () => {
    const jobId = '5b0c8a52-6f0e-4a55-9d43-3a8f5d8a1c11';
    const decision = decidePostLogin(
      loginInput({
        response: { nextAction: { nextAction: 'gnw-setup', jobId, pendingSetup: null, startWith: null, route: null } },
        next: '/gnw-login',
        instantNotary: activeInstantJob,
      }),
    );
    expect(decision).toEqual({ kind: 'navigate', path: `/gnw/setup?jobId=${jobId}`, clearInstantNotaryJob: false });
  });

  it('goes to the safe next path, /gnw-login included, once a fresh start cleared the instant-notary job', () => {
    expect(decideAuthenticatedPath(signer, '/gnw-login', null, { isFreshStart: true, activeJobId: 'gnw-job-1' })).toEqual({
      path: '/gnw-login',
      clearInstantNotaryJob: true,
    });
  });

  it('treats a witness as non-elevated and resumes their instant-notary job', () => {
    expect(decideAuthenticatedPath({ roles: ['witness'] }, null, null, activeInstantJob).path).toBe('/gnw/start');
  });
});

describe('isSafeNextPath', () => {
  it.each(['/', '/dashboard', '/dashboard?tab=jobs', '/jobs/detail#signers', '/help/a%20b', '/gnw-login'])('accepts the internal path %s', (next) => {
    expect(isSafeNextPath(next)).toBe(true);
  });

  it.each([
    ['a protocol-relative URL', '//evil.example'],
    ['a protocol-relative URL with more slashes', '///evil.example'],
    ['a backslash that browsers read as a slash', '/\\evil.example'],
    ['two backslashes', '\\\\evil.example'],
    ['an http URL', 'http://evil.example'],
    ['an https URL', 'https://evil.example'],
    ['a scheme with no slashes', 'https:evil.example'],
    ['a path that smuggles a scheme', '/https://evil.example'],
    ['a javascript: URL', 'javascript:alert(1)'],
    ['a relative path', 'dashboard'],
    ['a dot-relative path', './dashboard'],
    ['an empty string', ''],
    ['a tab (browsers drop it, turning /\\t/evil into //evil)', '/\t/evil.example'],
    ['a newline', '/dashboard\nSet-Cookie: x'],
    ['a NUL character', '/dash\u0000board'],
    ['a DEL character', '/dash\u007fboard'],
    ['a very long path', `/${'a'.repeat(3000)}`],
  ])('refuses %s', (_label, next) => {
    expect(isSafeNextPath(next)).toBe(false);
  });

  it('refuses values that are not strings', () => {
    expect(isSafeNextPath(null)).toBe(false);
    expect(isSafeNextPath(undefined)).toBe(false);
    expect(isSafeNextPath(42 as unknown as string)).toBe(false);
  });

  it('accepts a long path up to the 2048-character limit', () => {
    expect(isSafeNextPath(`/${'a'.repeat(2047)}`)).toBe(true);
    expect(isSafeNextPath(`/${'a'.repeat(2048)}`)).toBe(false);
  });
});

describe('isSessionPath and getSafeNextPath', () => {
  it.each([
    '/session',
    '/session/',
    '/session/job-1',
    '/session/job-1/doc-2',
    '/session/complete',
    '/signing',
    '/signing/job-1/doc-2',
    '/session?x=1',
    '/signing#top',
  ])('treats %s as a session path', (path) => {
    expect(isSessionPath(path)).toBe(true);
    expect(getSafeNextPath(path)).toBeNull();
  });

  it.each(['/Session/job-1', '/SIGNING', '/dashboard/../session/job-1', '/%73ession/job-1', '/./signing', '/%2e%2e/signing'])(
    'treats %s as a session path the way the router would see it',
    (path) => {
      expect(isSessionPath(path)).toBe(true);
      expect(getSafeNextPath(path)).toBeNull();
    },
  );

  it.each(['/sessions', '/signing-help', '/help/session', '/dashboard?from=/session'])('does not treat %s as a session path', (path) => {
    expect(isSessionPath(path)).toBe(false);
    expect(getSafeNextPath(path)).toBe(path);
  });

  it('returns null for an unsafe next path', () => {
    expect(getSafeNextPath('//evil.example')).toBeNull();
    expect(getSafeNextPath(null)).toBeNull();
  });
});

describe('getSignInToAcceptPath', () => {
  it('sends an invited person with an account to sign in, back to the invitation, with their address pre-filled', () => {
    expect(getSignInToAcceptPath({ token: 'tok_en-1', jobId: 'j1', email: 'pat@example.test' })).toBe(
      '/login?next=%2Fclaim%2Ftok_en-1&jobId=j1&email=pat%40example.test',
    );
    expect(getSignInToAcceptPath({ token: 't', jobId: null, email: null })).toBe('/login?next=%2Fclaim%2Ft');
  });
});

describe('readLoginQuery', () => {
  it('reads every login parameter by its own name', () => {
    expect(readLoginQuery(new URLSearchParams('jobId=j1&signerId=s1&next=%2Fhelp&resetToken=r1'))).toEqual({
      jobId: 'j1',
      signerId: 's1',
      next: '/help',
      resetToken: 'r1',
      email: null,
    });
  });

  it('reads an invited address to pre-fill the email field, and only something shaped like one', () => {
    expect(readLoginQuery(new URLSearchParams('email=%20Pat%40Example.test%20')).email).toBe('pat@example.test');
    expect(readLoginQuery(new URLSearchParams('email=not-an-address')).email).toBeNull();
    expect(readLoginQuery(new URLSearchParams(`email=${'a'.repeat(250)}%40example.test`)).email).toBeNull();
  });

  it.each([
    ['job_id', 'job_id=j2'],
    ['job', 'job=j3'],
  ])('reads the job id from the %s alias', (_alias, query) => {
    expect(readLoginQuery(new URLSearchParams(query)).jobId).toBe(query.split('=')[1]);
  });

  it.each([
    ['signer_id', 'signer_id=s2'],
    ['signer', 'signer=s3'],
  ])('reads the signer id from the %s alias', (_alias, query) => {
    expect(readLoginQuery(new URLSearchParams(query)).signerId).toBe(query.split('=')[1]);
  });

  it('prefers jobId over job_id over job, and signerId over signer_id over signer', () => {
    expect(readLoginQuery(new URLSearchParams('job=c&job_id=b&jobId=a&signer=z&signer_id=y&signerId=x'))).toMatchObject({ jobId: 'a', signerId: 'x' });
    expect(readLoginQuery(new URLSearchParams('job=c&job_id=b&signer=z&signer_id=y'))).toMatchObject({ jobId: 'b', signerId: 'y' });
  });

  it('skips empty or blank values and falls through to the next alias', () => {
    expect(readLoginQuery(new URLSearchParams('jobId=&job_id=%20%20&job=j4&signerId=%20&signer=s4'))).toMatchObject({ jobId: 'j4', signerId: 's4' });
  });

  it('trims values and answers null for every missing parameter', () => {
    expect(readLoginQuery(new URLSearchParams('jobId=%20j5%20'))).toEqual({ jobId: 'j5', signerId: null, next: null, resetToken: null, email: null });
  });

  it('returns the next parameter as given, leaving the safety check to isSafeNextPath', () => {
    expect(readLoginQuery(new URLSearchParams('next=%2F%2Fevil.example')).next).toBe('//evil.example');
  });
});
