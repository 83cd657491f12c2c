import { describe, expect, it } from 'vitest';
import type { PersonRecording } from '#server/features/video/recording/recording-gaps.ts';
import { writeSegmentSummary, type RecordingWriter } from './certificate-recording.ts';

/** The paragraphs a section writes, as text. */
function written(write: (writer: RecordingWriter) => void): string[] {
  const lines: string[] = [];
  write({ heading: (text) => lines.push(text), paragraph: (text) => lines.push(text), gap: () => undefined });
  return lines;
}

const at = (seconds: number) => new Date(Date.UTC(2026, 10, 26, 22, 0, seconds));
const segment = (participantId: string, from: number, to: number) => ({
  participantId,
  startedAt: at(from),
  endedAt: at(to),
  sha256: 'a'.repeat(64),
  sizeBytes: 1000,
});

describe('the segment summary of the audit certificate', () => {
  it('states no total that disagrees with each person’s recorded time when a person’s segments overlap (a reconnect)', () => {
    const notary = {
      participantId: 'n',
      name: 'Nora Notary',
      role: 'notary',
      segmentCount: 3,
      recordedMs: 12_000,
      wasInRecordedCall: true,
      interruptions: [],
    } as unknown as PersonRecording;
    const segments = [segment('n', 0, 4), segment('n', 2, 8), segment('n', 6, 12)];
    const lines = written((writer) =>
      writeSegmentSummary(
        writer,
        { people: [notary], segments: segments as never, segmentsDigest: 'b'.repeat(64), totalMs: 16_000 },
        { mono: undefined as never },
      ),
    );
    const text = lines.join('\n');
    expect(text).toContain('Nora Notary (notary): 3 segments covering 12 seconds of the call.');
    expect(text).not.toContain('16 seconds');
  });
});
