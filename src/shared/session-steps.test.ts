import { describe, expect, it } from 'vitest';
import { getSessionStep, type SessionStepFacts } from './session-steps.ts';

const base: SessionStepFacts = {
  jobId: 'j 1',
  status: 'ready',
  role: 'signer',
  identity: { required: true, satisfied: false, status: null },
  place: { sessionId: null, lobbyState: null },
};
const labelOf = (facts: Partial<SessionStepFacts>) => getSessionStep({ ...base, ...facts })?.label ?? null;

describe('the next step of a live session, the same on every page', () => {
  it('always leads to the session entry page of the job', () => {
    expect(getSessionStep(base)?.href).toBe('/session/j%201');
  });

  it('sends a signer to the identity step first, while the job is ready and before the notary opens the room', () => {
    expect(labelOf({})).toBe('Prove your identity');
    expect(labelOf({ identity: { required: true, satisfied: false, status: 'in_progress' } })).toBe('Continue proving your identity');
    expect(labelOf({ identity: { required: true, satisfied: false, status: 'rejected' } })).toBe('See what to do about your identity');
  });

  it('lets a signer whose identity is done get ready, enter once the room is open, and go back to it', () => {
    const done = { required: true, satisfied: true, status: 'ready' };
    expect(labelOf({ identity: done })).toBe('Get ready for the session');
    expect(labelOf({ identity: done, place: { sessionId: 's', lobbyState: null } })).toBe('Enter the session room');
    expect(labelOf({ identity: done, place: { sessionId: 's', lobbyState: 'waiting' } })).toBe('Return to the waiting room');
    expect(labelOf({ identity: done, place: { sessionId: 's', lobbyState: 'admitted' } })).toBe('Return to the session room');
    expect(getSessionStep({ ...base, identity: done, place: { sessionId: 's', lobbyState: null } })?.isUrgent).toBe(true);
  });

  it('gives the notary one way in: open the room, then return to it', () => {
    expect(labelOf({ role: 'notary', identity: null })).toBe('Open the session room');
    expect(labelOf({ role: 'notary', identity: null, place: { sessionId: 's', lobbyState: null } })).toBe('Return to the session room');
    expect(labelOf({ role: 'notary', identity: null, place: { sessionId: 's', lobbyState: 'admitted' } })).toBe('Return to the session room');
  });

  it('offers nothing on a job that is not open, or to someone who takes no part in the session', () => {
    for (const status of ['draft', 'completed', 'cancelled'] as const) expect(labelOf({ status })).toBeNull();
    expect(labelOf({ role: null })).toBeNull();
    expect(labelOf({ role: 'preparer' })).toBeNull();
  });

  it('knows only what it was told: without can-enter, the entry page decides', () => {
    expect(labelOf({ identity: undefined, place: undefined })).toBe('Get ready for the session');
    expect(labelOf({ status: 'in_session', identity: undefined, place: undefined })).toBe('Enter the session room');
  });
});
