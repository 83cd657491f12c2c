import { describe, expect, it } from 'vitest';
import { describeNextStep } from './session-complete-words.ts';

describe('describeNextStep', () => {
  it('tells a signer of a sealed job the address the link to the notarized documents was emailed to', () => {
    const sentence = describeNextStep({ isSealed: true, role: 'signer', email: 'sam@example.test' });
    expect(sentence).toBe(
      'The notary sealed the documents. You can download the notarized documents on the job page; we emailed a link to it to sam@example.test.',
    );
  });

  it('promises no email to a signer whose documents were not sealed', () => {
    expect(describeNextStep({ isSealed: false, role: 'signer', email: 'sam@example.test' })).not.toMatch(/email/);
  });

  it('promises no email to a witness, who is sent none', () => {
    expect(describeNextStep({ isSealed: true, role: 'witness', email: 'wendy@example.test' })).not.toMatch(/email/);
  });

  it('sends someone whose role is unknown to the job page', () => {
    expect(describeNextStep({ isSealed: true, role: null, email: 'x@example.test' })).toBe('Open the job page to see where it stands.');
  });
});
