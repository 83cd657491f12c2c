import { describe, expect, it } from 'vitest';
import {
  describeAccountStatus,
  describeLastSignIn,
  describeRoleChange,
  describeRoles,
  describeSignatureReset,
  describeStatusChange,
} from './admin-user-words.ts';

describe('the Users page in words', () => {
  it('says an account’s status in words, with what its owner has still to do', () => {
    expect(describeAccountStatus({ status: 'active', hasPassword: true, emailVerifiedAt: '2026-01-02T10:00:00Z' })).toBe('Active');
    expect(describeAccountStatus({ status: 'disabled', hasPassword: true, emailVerifiedAt: '2026-01-02T10:00:00Z' })).toBe('Deactivated');
    expect(describeAccountStatus({ status: 'active', hasPassword: false, emailVerifiedAt: null })).toBe(
      'Active; has not set a password yet and has not confirmed their email address.',
    );
    expect(describeAccountStatus({ status: 'pending', hasPassword: true, emailVerifiedAt: null })).toBe(
      'Waiting for approval; has not confirmed their email address.',
    );
  });

  it('writes the last sign-in as a date, or says there was none', () => {
    expect(describeLastSignIn(null)).toBe('Never signed in');
    expect(describeLastSignIn('2026-03-04T15:30:00Z', (iso) => `<${iso}>`)).toBe('<2026-03-04T15:30:00Z>');
    expect(describeLastSignIn('2026-03-04T15:30:00Z')).toMatch(/2026/);
  });

  it('names roles by their labels', () => {
    expect(describeRoles(['admin', 'title_agent'])).toBe('Administrator, Title agent');
    expect(describeRoles([])).toBe('No role');
  });

  it('asks before giving a role, warning what an administrator can do', () => {
    const words = describeRoleChange('add', 'admin', 'Nora Notary');
    expect(words.title).toBe('Give Nora Notary the Administrator role?');
    expect(words.description).toContain('Administrators can see and change every account, company and job.');
    expect(describeRoleChange('add', 'billing', 'Nora Notary').description).not.toContain('Administrators');
  });

  it('asks before taking a role away, saying the records stay', () => {
    const words = describeRoleChange('remove', 'notary', 'Nora Notary');
    expect(words.title).toBe('Take the Notary role from Nora Notary?');
    expect(words.description).toContain('Their jobs, journal and history stay');
    expect(words.confirmLabel).toBe('Remove role');
  });

  it('says deactivation signs the person out everywhere and keeps their jobs, journal and audit', () => {
    const words = describeStatusChange('disabled', 'Sam Signer');
    expect(words.title).toBe('Deactivate Sam Signer?');
    expect(words.description).toContain('signed out everywhere at once');
    expect(words.description).toContain('Their jobs, journal and audit history stay');
    expect(describeStatusChange('active', 'Sam Signer').confirmLabel).toBe('Reactivate');
  });

  it('says a signature reset keeps what was already signed', () => {
    expect(describeSignatureReset('Sam Signer').description).toContain('Documents already signed keep the signature');
  });
});
