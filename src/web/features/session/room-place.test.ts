import { describe, expect, it } from 'vitest';
import type { CanEnter } from '#shared/jobs.ts';
import { hasSessionEnded, placeInRoom } from './room-place.ts';

const sessionId = 'df1fb9af-9e21-4940-aadc-2d60e20f4039';

/** can-enter as the notary's page held it, from the answers of a reproduced run. */
function canEnter(session: Partial<CanEnter['session']>): CanEnter {
  return {
    canEnter: true,
    role: 'notary',
    reasons: [],
    notices: [],
    session: { sessionId: null, sessionStatus: null, participantId: null, lobbyState: null, recording: null, ...session },
    identity: { required: false, satisfied: true, checkId: null, status: null, policyCode: 'VA' },
  };
}
/** Read after the notary opened the session, before they entered it. */
const beforeEntry = canEnter({ sessionId, sessionStatus: 'created' });
const admitted = canEnter({ sessionId, sessionStatus: 'active', participantId: 'notary', lobbyState: 'admitted' });
const settled = { errorStatus: null, errorMessage: null, isFetching: false, admittedSessionId: null };

describe('placeInRoom', () => {
  it('waits for the read under way when the answer held predates the entry, instead of sending the notary back out of the room', () => {
    // The reproduced run: the pre-join screen sent the notary here after join and activate; the read
    // that saw the admission was cancelled by a live-channel change, so the cache held the answer
    // from before the entry while the next read was under way.
    expect(placeInRoom({ ...settled, data: beforeEntry, isFetching: true })).toEqual({ kind: 'loading' });
  });

  it('shows the room for an admitted person', () => {
    expect(placeInRoom({ ...settled, data: admitted })).toEqual({ kind: 'room', sessionId, participantId: 'notary', role: 'notary' });
    expect(placeInRoom({ ...settled, data: admitted, isFetching: true })).toEqual({ kind: 'room', sessionId, participantId: 'notary', role: 'notary' });
  });

  it('sends someone not admitted, once no read is under way, to the pre-join screen', () => {
    expect(placeInRoom({ ...settled, data: beforeEntry })).toEqual({ kind: 'entry' });
    expect(placeInRoom({ ...settled, data: canEnter({ sessionId, participantId: 'p1', lobbyState: 'denied' }) })).toEqual({ kind: 'entry' });
  });

  it('says the session ended when the settled answer names no session or another one after this page showed it', () => {
    expect(placeInRoom({ ...settled, data: canEnter({}), admittedSessionId: sessionId })).toEqual({ kind: 'ended' });
    expect(placeInRoom({ ...settled, data: canEnter({}), admittedSessionId: sessionId, isFetching: true })).toEqual({ kind: 'loading' });
  });

  it('sends a refused read to the pre-join screen and says what failed otherwise', () => {
    expect(placeInRoom({ ...settled, data: undefined, errorStatus: 403, errorMessage: 'Not yours.' })).toEqual({ kind: 'entry' });
    expect(placeInRoom({ ...settled, data: undefined, errorStatus: 500, errorMessage: 'The server failed.' })).toEqual({
      kind: 'error',
      message: 'The server failed.',
    });
    expect(placeInRoom({ ...settled, data: undefined, isFetching: true })).toEqual({ kind: 'loading' });
  });
});

describe('hasSessionEnded', () => {
  it('is not decided on an answer from before the session while a read is under way', () => {
    expect(hasSessionEnded({ data: canEnter({}), isFetching: true, sessionId })).toBe(false);
  });

  it('is true once a settled answer names no session or another one, and false for the same session', () => {
    expect(hasSessionEnded({ data: canEnter({}), isFetching: false, sessionId })).toBe(true);
    expect(hasSessionEnded({ data: canEnter({ sessionId: 'another' }), isFetching: false, sessionId })).toBe(true);
    expect(hasSessionEnded({ data: admitted, isFetching: false, sessionId })).toBe(false);
    expect(hasSessionEnded({ data: undefined, isFetching: false, sessionId })).toBe(false);
    expect(hasSessionEnded({ data: canEnter({}), isFetching: false, sessionId: null })).toBe(false);
  });
});
