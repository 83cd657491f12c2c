import { describe, expect, it } from 'vitest';
import { readServerMessage } from './server-message.ts';

describe('readServerMessage', () => {
  it('uses the sentence the server answered with', () => {
    expect(readServerMessage({ ok: true, message: 'Nora’s saved signature and initials were removed.' }, 'Done.')).toBe(
      'Nora’s saved signature and initials were removed.',
    );
  });

  it('falls back to the page’s sentence when the answer has none', () => {
    expect(readServerMessage(null, 'The invitation was withdrawn.')).toBe('The invitation was withdrawn.');
    expect(readServerMessage({ id: 'x' }, 'Saved.')).toBe('Saved.');
    expect(readServerMessage({ message: '  ' }, 'Saved.')).toBe('Saved.');
    expect(readServerMessage('plain text', 'Saved.')).toBe('Saved.');
  });
});
