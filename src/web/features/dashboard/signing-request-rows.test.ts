import { describe, expect, it } from 'vitest';
import { applyWitnessCount, describeJobTypeChoice, describeNotaryOutcome, type ParticipantRow } from './signing-request-rows.ts';

const signer: ParticipantRow = { key: 1, name: '', email: '', role: 'signer' };

describe('a job type’s witnesses in New Signing Request', () => {
  it('adds that many empty witness rows to fill in', () => {
    const rows = applyWitnessCount([signer], 2);
    expect(rows.map((row) => row.role)).toEqual(['signer', 'witness', 'witness']);
    expect(new Set(rows.map((row) => row.key)).size).toBe(3);
  });

  it('takes away the empty witness rows of a type picked before, but never a row with something typed in it', () => {
    const typed: ParticipantRow = { key: 2, name: 'Wanda Witness', email: '', role: 'witness' };
    const rows = applyWitnessCount([signer, typed, { key: 3, name: '', email: '', role: 'witness' }, { key: 4, name: '', email: '', role: 'witness' }], 0);
    expect(rows).toEqual([signer, typed]);
  });

  it('counts witnesses already filled in, adding only the ones missing', () => {
    const filled: ParticipantRow = { key: 5, name: 'Wes Witness', email: 'wes@example.com', role: 'witness' };
    const rows = applyWitnessCount([signer, filled], 3);
    expect(rows.filter((row) => row.role === 'witness')).toHaveLength(3);
    expect(rows.slice(0, 2)).toEqual([signer, filled]);
  });

  it('never grows the list past ten participants', () => {
    const nine = Array.from({ length: 9 }, (_, index) => ({ key: index + 1, name: `Signer ${index}`, email: '', role: 'signer' as const }));
    expect(applyWitnessCount(nine, 4)).toHaveLength(10);
  });
});

describe('the notary a new job gets', () => {
  it('names the company’s default notary when none is chosen', () => {
    expect(describeNotaryOutcome(null, 'Nora Notary', 'Harbor Title')).toBe(
      'If you choose no notary, the job gets Nora Notary, Harbor Title’s default notary.',
    );
  });

  it('says nothing once a notary is chosen', () => {
    expect(describeNotaryOutcome('Nadia Notary', 'Nora Notary', 'Harbor Title')).toBeNull();
  });

  it('says the job waits for a notary when the company has no default', () => {
    expect(describeNotaryOutcome(null, null, 'Harbor Title')).toContain('waits until one is assigned');
  });
});

describe('the hint under the job type choice', () => {
  it('says what picking a job type does', () => {
    expect(describeJobTypeChoice(null)).toContain('adds a row for each witness');
  });

  it('says what the picked job type filled in', () => {
    expect(describeJobTypeChoice({ witnessCount: 2, instructions: 'Initial every page.' })).toBe(
      'The notarization type is set. A row for each of its 2 witnesses is ready below to fill in. Its instructions for the notary go with the job.',
    );
    expect(describeJobTypeChoice({ witnessCount: 1, instructions: '' })).toBe('The notarization type is set. A row for its witness is ready below to fill in.');
    expect(describeJobTypeChoice({ witnessCount: 0, instructions: ' ' })).toBe('The notarization type is set. It asks for no witnesses.');
  });
});
