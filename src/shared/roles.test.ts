import { describe, expect, it } from 'vitest';
import { canCreateJobs, elevatedRoles, getEffectiveRole, getRoleHome, getUserRoles, hasAnyRole, hasElevatedRole, roles } from './roles.ts';

describe('getEffectiveRole', () => {
  it('picks admin whenever the user has it, wherever it is listed', () => {
    expect(getEffectiveRole({ roles: ['signer', 'notary', 'admin'] })).toBe('admin');
  });

  it('picks notary when there is no admin role', () => {
    expect(getEffectiveRole({ roles: ['title', 'signer', 'notary'] })).toBe('notary');
  });

  it('picks the first role when there is neither admin nor notary', () => {
    expect(getEffectiveRole({ roles: ['billing', 'title'] })).toBe('billing');
    expect(getEffectiveRole({ roles: ['witness', 'signer'] })).toBe('witness');
  });

  it('falls back to signer for a user with no roles', () => {
    expect(getEffectiveRole({ roles: [] })).toBe('signer');
    expect(getEffectiveRole({})).toBe('signer');
  });

  it('reads the single `role` field when there is no roles list', () => {
    expect(getEffectiveRole({ role: 'title_agent' })).toBe('title_agent');
    expect(getEffectiveRole({ roles: null, role: 'observer' })).toBe('observer');
  });

  it('prefers the roles list over the single role field', () => {
    expect(getEffectiveRole({ roles: ['finance'], role: 'admin' })).toBe('finance');
  });

  it('ignores unknown roles in the list and in the single field', () => {
    expect(getEffectiveRole({ roles: ['superuser', 'title'] })).toBe('title');
    expect(getEffectiveRole({ roles: ['superuser'] })).toBe('signer');
    expect(getEffectiveRole({ role: 'root' })).toBe('signer');
    expect(getEffectiveRole({ roles: ['ADMIN'] })).toBe('signer');
  });

  it('falls back to the single field when every listed role is unknown', () => {
    expect(getEffectiveRole({ roles: ['superuser'], role: 'notary' })).toBe('notary');
  });

  it('answers signer for a missing user', () => {
    expect(getEffectiveRole(null)).toBe('signer');
    expect(getEffectiveRole(undefined)).toBe('signer');
  });
});

describe('getUserRoles', () => {
  it('drops duplicates and unknown names but keeps the order', () => {
    expect(getUserRoles({ roles: ['title', 'bogus', 'title', 'signer'] })).toEqual(['title', 'signer']);
  });

  it('answers an empty list for a missing user or a non-list roles field', () => {
    expect(getUserRoles(null)).toEqual([]);
    expect(getUserRoles({ roles: 'admin' as unknown as string[] })).toEqual([]);
  });
});

describe('hasElevatedRole and hasAnyRole', () => {
  it('counts admin, notary, title, title_agent, billing, finance and observer as elevated, and nothing else', () => {
    expect([...elevatedRoles].sort()).toEqual(['admin', 'billing', 'finance', 'notary', 'observer', 'title', 'title_agent']);
    for (const role of roles) expect(hasElevatedRole({ roles: [role] })).toBe(elevatedRoles.includes(role));
  });

  it('does not count a signer, a witness or nobody as elevated', () => {
    expect(hasElevatedRole({ roles: ['signer', 'witness'] })).toBe(false);
    expect(hasElevatedRole(null)).toBe(false);
  });

  it('matches any one of the allowed roles', () => {
    expect(hasAnyRole({ roles: ['signer', 'billing'] }, ['finance', 'billing'])).toBe(true);
    expect(hasAnyRole({ roles: ['signer'] }, ['admin'])).toBe(false);
    expect(hasAnyRole({ role: 'admin' }, ['admin'])).toBe(true);
    expect(hasAnyRole(null, ['admin'])).toBe(false);
  });
});

describe('getRoleHome', () => {
  it('sends every role to the dashboard', () => {
    for (const role of roles) expect(getRoleHome(role)).toBe('/dashboard');
  });
});

describe('canCreateJobs', () => {
  it('offers New Signing Request to the roles POST /api/jobs admits, never to billing, finance, observers or witnesses alone', () => {
    for (const role of ['admin', 'notary', 'title', 'title_agent', 'signer']) expect(canCreateJobs({ roles: [role] }), role).toBe(true);
    for (const role of ['billing', 'finance', 'observer', 'witness']) expect(canCreateJobs({ roles: [role] }), role).toBe(false);
    expect(canCreateJobs({ roles: ['billing', 'title'] })).toBe(true);
    expect(canCreateJobs(null)).toBe(false);
  });
});
