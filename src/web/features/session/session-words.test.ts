import { describe, expect, it } from 'vitest';
import { getEnterLabel, getStartControl } from './session-words.ts';

describe('the notary’s way into the act has one start', () => {
  it('names the pre-join button for entering, never for starting', () => {
    expect(getEnterLabel({ sessionId: null, participantId: null, lobbyState: null })).toBe('Enter the room');
    expect(getEnterLabel({ sessionId: 's', participantId: null, lobbyState: null })).toBe('Enter the room');
    expect(getEnterLabel({ sessionId: 's', participantId: 'p', lobbyState: 'waiting' })).toBe('Enter the room');
    expect(getEnterLabel({ sessionId: 's', participantId: 'p', lobbyState: 'admitted' })).toBe('Return to the room');
    expect(getEnterLabel({ sessionId: null, participantId: null, lobbyState: null })).not.toMatch(/start|open the session/i);
  });

  it('starts the notarization and its recording in one control, and offers to resume a stopped recording', () => {
    expect(getStartControl('active', false)).toMatchObject({ kind: 'start', label: 'Start the notarization' });
    expect(getStartControl('started', false)).toMatchObject({ kind: 'resume-recording', label: 'Resume the recording' });
    expect(getStartControl('started', true)).toMatchObject({ kind: 'recording', label: 'Stop recording' });
    expect(getStartControl('created', false)).toEqual({ kind: 'none' });
    expect(getStartControl(undefined, false)).toEqual({ kind: 'none' });
  });
});
