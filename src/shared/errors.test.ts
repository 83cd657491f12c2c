import { describe, expect, it } from 'vitest';
import { errorBodySchema, errorCodes, getErrorText, readErrorCode } from './errors.ts';

describe('getErrorText', () => {
  it('shows the message field when there is one', () => {
    expect(getErrorText({ error: 'invalid_credentials', message: 'Invalid email or password.', detail: 'x' }, 'Login failed')).toBe(
      'Invalid email or password.',
    );
  });

  it('shows the error field plus the detail field when there is no message', () => {
    expect(getErrorText({ error: 'no_file', detail: 'Choose at least one PDF.' }, 'Upload failed')).toBe('no_file: Choose at least one PDF.');
  });

  it('shows the error field alone when there is no message and no text detail', () => {
    expect(getErrorText({ error: 'no_file' }, 'Upload failed')).toBe('no_file');
    expect(getErrorText({ error: 'validation_failed', detail: [{ path: 'email' }] }, 'Failed')).toBe('validation_failed');
    expect(getErrorText({ error: 'no_file', detail: '   ' }, 'Failed')).toBe('no_file');
  });

  it('skips a blank or non-text message', () => {
    expect(getErrorText({ error: 'rate_limited', message: '  ' }, 'Failed')).toBe('rate_limited');
    expect(getErrorText({ error: 'rate_limited', message: 429 }, 'Failed')).toBe('rate_limited');
  });

  it('uses the fallback when the body has neither message nor error', () => {
    expect(getErrorText({}, 'Login failed')).toBe('Login failed');
    expect(getErrorText({ error: '', message: '' }, 'Login failed')).toBe('Login failed');
    expect(getErrorText({ error: 42 }, 'Login failed')).toBe('Login failed');
    expect(getErrorText(null, 'Login failed')).toBe('Login failed');
    expect(getErrorText(undefined, 'Login failed')).toBe('Login failed');
  });

  it('shows a short plain-text body as it is', () => {
    expect(getErrorText('Bad Gateway', 'Request failed')).toBe('Bad Gateway');
  });

  it('uses the fallback for a blank or overly long plain-text body such as an HTML error page', () => {
    expect(getErrorText('   ', 'Request failed')).toBe('Request failed');
    expect(getErrorText(`<html>${'x'.repeat(400)}</html>`, 'Request failed')).toBe('Request failed');
  });
});

describe('errorBodySchema', () => {
  it('accepts the server error shape with and without detail', () => {
    expect(errorBodySchema.safeParse({ error: 'forbidden', message: 'No.' }).success).toBe(true);
    expect(errorBodySchema.safeParse({ error: 'validation_failed', message: 'Bad.', detail: [{ path: 'email' }] }).success).toBe(true);
  });

  it('refuses a body without a message', () => {
    expect(errorBodySchema.safeParse({ error: 'forbidden' }).success).toBe(false);
  });
});

describe('readErrorCode', () => {
  it('reads a code this server sends and nothing else', () => {
    expect(readErrorCode({ error: 'stale_version', message: 'Changed meanwhile.' })).toBe('stale_version');
    expect(readErrorCode({ error: 'no_files' })).toBeNull();
    expect(readErrorCode({ message: 'no code' })).toBeNull();
    expect(readErrorCode('stale_version')).toBeNull();
    expect(readErrorCode(null)).toBeNull();
  });

  it('lists each code once, in snake case', () => {
    expect(new Set(errorCodes).size).toBe(errorCodes.length);
    for (const code of errorCodes) expect(code).toMatch(/^[a-z]+(_[a-z0-9]+)*$/);
  });
});
