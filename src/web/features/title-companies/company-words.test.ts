import { describe, expect, it } from 'vitest';
import { describeCompanyClosing, describeDefaultNotary, describeJobType, describeMember, describeMemberRemoval, describePlace } from './company-words.ts';

const day = (iso: string) => iso.slice(0, 10);

describe('the company page in words', () => {
  it('names the place by city and state name', () => {
    expect(describePlace('Austin', 'TX')).toBe('Austin, Texas');
    expect(describePlace(null, 'VA')).toBe('Virginia');
    expect(describePlace(null, null)).toBeNull();
  });

  it('says which notary new jobs get', () => {
    expect(describeDefaultNotary('Nora Notary')).toBe('New jobs of this company get Nora Notary unless another notary is chosen.');
    expect(describeDefaultNotary(null)).toContain('no default notary');
  });

  it('says when a member joined, or until when an invitation works', () => {
    const now = new Date('2026-03-05T12:00:00Z');
    expect(describeMember({ role: 'title_agent', status: 'active', since: '2026-03-01T09:00:00Z', expiresAt: null }, now, day)).toBe(
      'Agent, joined 2026-03-01.',
    );
    expect(describeMember({ role: 'title', status: 'invited', since: '2026-03-03T09:00:00Z', expiresAt: '2026-03-10T09:00:00Z' }, now, day)).toBe(
      'Title staff, invited 2026-03-03; the link works until 2026-03-10.',
    );
    expect(describeMember({ role: 'title_agent', status: 'invited', since: '2026-02-01T09:00:00Z', expiresAt: '2026-02-08T09:00:00Z' }, now, day)).toBe(
      'Agent, invited 2026-02-01; the link stopped working on 2026-02-08. Remove the invitation and invite them again.',
    );
  });

  it('describes a job type in one sentence', () => {
    expect(describeJobType({ notarizationType: 'jurat', witnessCount: 2, documentTags: ['signing', 'reference'] })).toBe(
      'Jurat with 2 witnesses; documents tagged to be signed and reference.',
    );
    expect(describeJobType({ notarizationType: 'acknowledgment', witnessCount: 1, documentTags: [] })).toBe('Acknowledgment with 1 witness.');
    expect(describeJobType({ notarizationType: 'oath_affirmation', witnessCount: 0, documentTags: ['identification'] })).toBe(
      'Oath or affirmation, no witnesses; documents tagged identification.',
    );
  });

  it('asks differently before removing a member and withdrawing an invitation', () => {
    expect(describeMemberRemoval({ name: 'Alex Agent', email: 'alex@example.test', status: 'active' }, 'Harbor Title').description).toContain(
      'loses access to Harbor Title and its jobs at once',
    );
    const withdrawal = describeMemberRemoval({ name: 'Alex Agent', email: 'alex@example.test', status: 'invited' }, 'Harbor Title');
    expect(withdrawal.title).toBe('Withdraw the invitation to Alex Agent?');
    // Two invitations to people of the same name are told apart by the address.
    expect(withdrawal.description).toBe('The link emailed to alex@example.test stops working; Alex Agent does not join Harbor Title.');
  });

  it('says closing a company shuts its people out and keeps its jobs and history', () => {
    const words = describeCompanyClosing('Harbor Title', 3);
    expect(words.title).toBe('Close Harbor Title?');
    expect(words.description).toBe(
      'Its 3 members lose access to the company at once, and it takes no new jobs. Its jobs and their history stay, for administrators and for each job’s participants.',
    );
    expect(describeCompanyClosing('Harbor Title', 1).description).toMatch(/^Its one member loses access/);
  });
});
