import { describe, expect, it } from 'vitest';
import { createJobInputSchema } from '#shared/jobs.ts';
import { toFieldErrors } from './form-errors.ts';

describe('toFieldErrors', () => {
  it('keys each message by its field path and keeps the first message of a field', () => {
    expect(
      toFieldErrors([
        { path: ['title'], message: 'Enter a title for the job.' },
        { path: ['title'], message: 'A second complaint about the title.' },
        { path: ['signers', 1, 'email'], message: 'Enter a valid email address.' },
        { path: [], message: 'Nothing to change.' },
      ]),
    ).toEqual({ title: 'Enter a title for the job.', 'signers.1.email': 'Enter a valid email address.', form: 'Nothing to change.' });
  });

  it('reads the new-job schema’s issues: an empty title and a participant without an email', () => {
    const parsed = createJobInputSchema.safeParse({ title: '', notarizationType: 'acknowledgment', signers: [{ name: 'Sam', email: '' }] });
    expect(parsed.success).toBe(false);
    expect(toFieldErrors(parsed.error?.issues ?? [])).toEqual({ title: 'Enter a title for the job.', 'signers.0.email': 'Enter a valid email address.' });
  });
});
