import { describe, expect, it } from 'vitest';
import type { PlaybackRecording } from '#shared/recording-playback.ts';
import { findSegmentAt, getTimelineSpan, toPercent } from './recording-time.ts';

const at = (seconds: number) => new Date(Date.UTC(2026, 10, 23, 10, 0, seconds)).toISOString();
const segment = (sequence: number, from: number, to: number) => ({
  segmentId: `s${sequence}`,
  sequence,
  startedAt: at(from),
  endedAt: at(to),
  sha256: 'a'.repeat(64),
  bytes: 10,
  url: `/x/${sequence}`,
});
const recording: PlaybackRecording = {
  recordingId: 'r',
  sessionId: 's',
  status: 'stopped',
  startedAt: at(0),
  stoppedAt: at(40),
  keptUntil: null,
  tracks: [
    { participantId: 'notary', name: 'Nora', role: 'notary', segments: [segment(0, 1, 5), segment(1, 5, 9)] },
    // Sam dropped out from 9 s to 30 s and came back.
    { participantId: 'sam', name: 'Sam', role: 'signer', segments: [segment(0, 1, 5), segment(1, 5, 9), segment(2, 30, 34)] },
  ],
};

describe('the recording timeline', () => {
  it('spans from the start to the stop, or to the last stored media when it runs on', () => {
    expect(getTimelineSpan(recording)).toEqual({ from: Date.parse(at(0)), to: Date.parse(at(40)) });
    expect(getTimelineSpan({ ...recording, status: 'recording', stoppedAt: null })).toEqual({ from: Date.parse(at(0)), to: Date.parse(at(34)) });
    expect(getTimelineSpan({ ...recording, status: 'recording', stoppedAt: null, tracks: [] }).to).toBe(Date.parse(at(1)));
    expect(toPercent(Date.parse(at(10)), getTimelineSpan(recording))).toBe('25.000%');
  });

  it('finds the segment holding a moment with the seconds into it, the next one across a gap, and none past the end', () => {
    expect(findSegmentAt(recording, 'sam', Date.parse(at(6)))).toEqual({ index: 1, offset: 1 });
    expect(findSegmentAt(recording, 'sam', Date.parse(at(12)))).toEqual({ index: 2, offset: 0 });
    expect(findSegmentAt(recording, 'sam', Date.parse(at(0)))).toEqual({ index: 0, offset: 0 });
    expect(findSegmentAt(recording, 'notary', Date.parse(at(20)))).toBeNull();
    expect(findSegmentAt(recording, 'nobody', Date.parse(at(2)))).toBeNull();
  });
});
