import { describe, expect, it } from 'vitest';
import { groupByParticipant } from './subscriptions.ts';

describe('groupByParticipant', () => {
  const tracks: Record<string, string> = { '2': 'alice-audio', '3': 'alice-video', '4': 'bob-video', '6': 'self-video' };
  const trackOf = (mid: string) => tracks[mid];

  it("puts each mid's track with the participant the offer names for it", () => {
    const grouped = groupByParticipant(
      [
        { mid: '2', kind: 'audio', participantId: 'alice' },
        { mid: '3', kind: 'video', participantId: 'alice' },
        { mid: '4', kind: 'video', participantId: 'bob' },
      ],
      trackOf,
      'notary',
    );
    expect(Object.fromEntries(grouped)).toEqual({ alice: { audio: 'alice-audio', video: 'alice-video' }, bob: { audio: null, video: 'bob-video' } });
  });

  it('skips mids without a track yet and never gives a person their own media', () => {
    const grouped = groupByParticipant(
      [
        { mid: '5', kind: 'audio', participantId: 'carol' },
        { mid: '6', kind: 'video', participantId: 'notary' },
      ],
      trackOf,
      'notary',
    );
    expect(grouped.size).toBe(0);
  });
});
