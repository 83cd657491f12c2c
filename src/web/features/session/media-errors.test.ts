import { describe, expect, it } from 'vitest';
import { describeMediaError } from './media-errors.ts';

const domError = (name: string) => Object.assign(new Error('browser text'), { name });

describe('describeMediaError', () => {
  it('tells a person who refused permission how to allow it', () => {
    const sentence = describeMediaError(domError('NotAllowedError'), 'both');
    expect(sentence).toContain('not letting this page use your camera and microphone');
    expect(sentence).toContain('choose Allow');
  });

  it('says which device is missing', () => {
    expect(describeMediaError(domError('NotFoundError'), 'camera')).toMatch(/^No camera was found\./);
    expect(describeMediaError(domError('NotFoundError'), 'microphone')).toMatch(/^No microphone was found\./);
    expect(describeMediaError(domError('NotFoundError'), 'both')).toMatch(/^No camera or microphone was found\./);
  });

  it('says another app holds the device', () => {
    expect(describeMediaError(domError('NotReadableError'), 'microphone')).toBe(
      'Another app is using your microphone (a video call, for example). Close it, then press Check again.',
    );
  });

  it('never shows the browser’s own code for an unknown failure', () => {
    const sentence = describeMediaError({ name: 'WeirdError' }, 'camera');
    expect(sentence).toBe('Your camera could not be started. Press Check again, or try another browser.');
    expect(sentence).not.toContain('WeirdError');
  });
});
