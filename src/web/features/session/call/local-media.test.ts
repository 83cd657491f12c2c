import { describe, expect, it } from 'vitest';
import { describeMediaError } from './local-media.ts';

describe('describeMediaError', () => {
  it('says in words what kept the camera or microphone from starting', () => {
    expect(describeMediaError(new DOMException('denied', 'NotAllowedError'))).toMatch(/blocked the camera and microphone/);
    expect(describeMediaError(new DOMException('gone', 'NotFoundError'))).toMatch(/not connected/);
    expect(describeMediaError(new DOMException('busy', 'NotReadableError'))).toMatch(/Another app is using/);
    expect(describeMediaError(new Error('odd'))).toBe('Your camera and microphone could not be started.');
  });
});
