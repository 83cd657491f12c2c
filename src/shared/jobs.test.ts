import { describe, expect, it } from 'vitest';
import {
  canTransition,
  getAllowedTransitions,
  getTransitionBlocker,
  getTransitionRefusal,
  isJobEditable,
  isNotaryAmong,
  jobStatuses,
  jobTransitionActors,
  jobTransitions,
  type JobStatus,
  type TransitionFacts,
} from './jobs.ts';

const allowedMoves: Array<[JobStatus, JobStatus]> = [
  ['draft', 'ready'],
  ['draft', 'cancelled'],
  ['ready', 'draft'],
  ['ready', 'scheduled'],
  ['ready', 'in_session'],
  ['ready', 'cancelled'],
  ['scheduled', 'ready'],
  ['scheduled', 'in_session'],
  ['scheduled', 'cancelled'],
  ['in_session', 'ready'],
  ['in_session', 'completed'],
  ['in_session', 'cancelled'],
];

const everyFact: TransitionFacts = { signerCount: 1, documentCount: 1, hasNotary: true, scheduledAt: '2030-01-01T10:00:00Z' };

describe('canTransition', () => {
  it.each(allowedMoves)('allows %s -> %s', (from, to) => {
    expect(canTransition(from, to)).toBe(true);
  });

  it('refuses every other move, including staying in the same status', () => {
    const allowed = new Set(allowedMoves.map(([from, to]) => `${from}->${to}`));
    for (const from of jobStatuses) {
      for (const to of jobStatuses) {
        expect(canTransition(from, to), `${from} -> ${to}`).toBe(allowed.has(`${from}->${to}`));
      }
    }
  });

  it('treats completed and cancelled as final', () => {
    expect(jobTransitions.completed).toEqual([]);
    expect(jobTransitions.cancelled).toEqual([]);
  });
});

describe('isJobEditable', () => {
  it('allows edits only before the session starts', () => {
    expect(jobStatuses.filter(isJobEditable)).toEqual(['draft', 'ready', 'scheduled']);
  });
});

describe('getTransitionBlocker', () => {
  it.each(allowedMoves)('has nothing against %s -> %s when every precondition holds', (from, to) => {
    expect(getTransitionBlocker(from, to, everyFact)).toBeNull();
  });

  it.each([
    ['draft', 'completed', 'A draft job cannot become completed.'],
    ['draft', 'in_session', 'A draft job cannot become in session.'],
    ['completed', 'ready', 'A completed job cannot become ready.'],
    ['cancelled', 'draft', 'A cancelled job cannot become draft.'],
    ['scheduled', 'draft', 'A scheduled job cannot become draft.'],
  ] as const)('names the illegal move %s -> %s', (from, to, message) => {
    expect(getTransitionBlocker(from, to, everyFact)).toBe(message);
  });

  it('asks for a signer, then a document, before a draft becomes ready', () => {
    expect(getTransitionBlocker('draft', 'ready', { ...everyFact, signerCount: 0, documentCount: 0 })).toBe(
      'Add at least one signer before marking the job ready.',
    );
    expect(getTransitionBlocker('draft', 'ready', { ...everyFact, documentCount: 0 })).toBe('Upload at least one document before marking the job ready.');
  });

  it('does not re-check signers and documents when a job comes back to ready from a later status', () => {
    const empty = { ...everyFact, signerCount: 0, documentCount: 0 };
    expect(getTransitionBlocker('scheduled', 'ready', empty)).toBeNull();
    expect(getTransitionBlocker('in_session', 'ready', empty)).toBeNull();
  });

  it('asks for a date, then a notary, before a job is scheduled', () => {
    expect(getTransitionBlocker('ready', 'scheduled', { ...everyFact, scheduledAt: null, hasNotary: false })).toBe(
      'Set a date and time before scheduling the job.',
    );
    expect(getTransitionBlocker('ready', 'scheduled', { ...everyFact, hasNotary: false })).toBe('Assign a notary before scheduling the job.');
  });

  it('asks for a notary before a session starts', () => {
    expect(getTransitionBlocker('ready', 'in_session', { ...everyFact, hasNotary: false })).toBe('Assign a notary before the session starts.');
    expect(getTransitionBlocker('scheduled', 'in_session', { ...everyFact, hasNotary: false })).toBe('Assign a notary before the session starts.');
  });

  it('lets a job be cancelled whatever is missing', () => {
    const nothing: TransitionFacts = { signerCount: 0, documentCount: 0, hasNotary: false, scheduledAt: null };
    for (const from of ['draft', 'ready', 'scheduled', 'in_session'] as const) expect(getTransitionBlocker(from, 'cancelled', nothing)).toBeNull();
  });
});

describe('isNotaryAmong', () => {
  const notary = { id: 'n-1', email: 'Nora@Example.test' };
  it('finds the notary by account', () => {
    expect(isNotaryAmong(notary, [{ userId: 'n-1', email: 'someone-else@example.test' }])).toBe(true);
  });

  it('finds the notary by email, whatever the case and surrounding spaces', () => {
    expect(isNotaryAmong(notary, [{ email: ' NORA@example.TEST ' }])).toBe(true);
  });

  it('finds no one when neither account nor email match', () => {
    expect(
      isNotaryAmong(notary, [
        { userId: 'u-2', email: 'sam@example.test' },
        { userId: null, email: 'nora@example.org' },
      ]),
    ).toBe(false);
  });
});

describe('jobTransitionActors', () => {
  it('names who may make every move of the table, and no move outside it', () => {
    for (const from of jobStatuses) {
      expect(Object.keys(jobTransitionActors[from]).sort(), from).toEqual([...jobTransitions[from]].sort());
    }
  });

  it('refuses a move outside the table before asking who makes it', () => {
    expect(getTransitionRefusal('draft', 'completed', ['admin', 'preparer', 'notary'])).toEqual({
      kind: 'invalid_transition',
      message: 'A draft job cannot become completed.',
    });
  });

  it('lets only the notary start and pause a session, and names them in the refusal', () => {
    expect(getTransitionRefusal('ready', 'in_session', ['notary'])).toBeNull();
    expect(getTransitionRefusal('scheduled', 'in_session', ['admin', 'preparer'])).toEqual({
      kind: 'forbidden',
      message: 'Only the job’s notary may start the session.',
    });
    expect(getTransitionRefusal('in_session', 'ready', ['preparer'])).toEqual({ kind: 'forbidden', message: 'Only the job’s notary may pause the session.' });
  });

  it('never completes a job by a status change, not even for its notary', () => {
    expect(getTransitionRefusal('in_session', 'completed', ['notary'])?.kind).toBe('invalid_transition');
    expect(getTransitionRefusal('in_session', 'completed', ['admin', 'preparer'])?.kind).toBe('forbidden');
    expect(getAllowedTransitions('in_session', ['admin', 'preparer', 'notary'])).toEqual(['ready', 'cancelled']);
  });

  it('offers nothing to someone who is none of admin, preparer or notary', () => {
    for (const status of jobStatuses) expect(getAllowedTransitions(status, [])).toEqual([]);
  });
});
