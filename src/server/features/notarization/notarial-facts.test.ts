import { describe, expect, it } from 'vitest';
import { judgeNotarialAct, type IdentityOutcome } from './notarial-facts.ts';

const sam = { id: 'p-sam', role: 'signer', isIdBypassed: false, idBypassReason: null };
const wanda = { id: 'p-wanda', role: 'witness', isIdBypassed: false, idBypassReason: null };
const otto = { id: 'p-otto', role: 'observer', isIdBypassed: false, idBypassReason: null };
const proven = (participantId: string): IdentityOutcome => ({
  participantId,
  isProven: true,
  method: 'Credential analysis and knowledge-based authentication',
});

describe('judgeNotarialAct', () => {
  it('is not a notarial act without a recorded session or proven identity, and says both', () => {
    const judged = judgeNotarialAct({ session: null, outcomes: [], participants: [sam, wanda, otto] });
    expect(judged.facts).toEqual({
      isNotarialAct: false,
      hasRecordedSession: false,
      hasProvenIdentity: false,
      reasons: ['No audio-video session was recorded.', 'No signer’s identity was proven.'],
    });
    expect(judged.recordingReference).toBeNull();
    expect(judged.identityOf('p-sam')).toBe('Not proven: no identity proofing outcome is recorded');
  });

  it('is a notarial act only with a recorded session and every signer and witness proven; observers need no proofing', () => {
    const session = { reference: 'recording 7f3a, 42 minutes' };
    const complete = judgeNotarialAct({ session, outcomes: [proven('p-sam'), proven('p-wanda')], participants: [sam, wanda, otto] });
    expect(complete.facts).toEqual({ isNotarialAct: true, hasRecordedSession: true, hasProvenIdentity: true, reasons: [] });
    expect(complete.recordingReference).toBe('recording 7f3a, 42 minutes');
    expect(complete.identityOf('p-sam')).toBe('Credential analysis and knowledge-based authentication');

    const noSession = judgeNotarialAct({ session: null, outcomes: [proven('p-sam'), proven('p-wanda')], participants: [sam, wanda] });
    expect(noSession.facts).toEqual({
      isNotarialAct: false,
      hasRecordedSession: false,
      hasProvenIdentity: true,
      reasons: ['No audio-video session was recorded.'],
    });
  });

  it('counts the signers whose identity is not proven without naming them, and a failed outcome is not proof', () => {
    const judged = judgeNotarialAct({
      session: { reference: 'recording 1' },
      outcomes: [proven('p-sam'), { participantId: 'p-wanda', isProven: false, method: 'Knowledge-based authentication failed' }],
      participants: [sam, wanda],
    });
    expect(judged.facts).toEqual({
      isNotarialAct: false,
      hasRecordedSession: true,
      hasProvenIdentity: false,
      reasons: ['The identity of 1 of 2 signers was not proven.'],
    });
    expect(judged.identityOf('p-wanda')).toBe('Not proven: Knowledge-based authentication failed');
  });

  it('reports a notary’s identity bypass as what it is, not as proof', () => {
    const judged = judgeNotarialAct({ session: null, outcomes: [], participants: [{ ...sam, isIdBypassed: true, idBypassReason: 'Known to me for years' }] });
    expect(judged.facts.hasProvenIdentity).toBe(false);
    expect(judged.identityOf('p-sam')).toBe('Not proven: identity verification bypassed by the notary (Known to me for years)');
  });

  it('is not a notarial act when nobody signed', () => {
    const judged = judgeNotarialAct({ session: { reference: 'recording 2' }, outcomes: [], participants: [otto] });
    expect(judged.facts).toMatchObject({ isNotarialAct: false, hasProvenIdentity: false, reasons: ['No signer took part.'] });
  });
});
