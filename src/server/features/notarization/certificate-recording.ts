import type { PDFFont } from 'pdf-lib';
import { formatDuration, formatRecordSpan, formatRecordTime } from '#shared/dates.ts';
import { interruptionListedMs, type PersonRecording } from '#server/features/video/recording/recording-gaps.ts';
import type { RecordedSegmentEntry } from '#server/features/video/recording/recording-rules.ts';

/**
 * What the audit certificate says about the recording (decision 033): each person's time out of the
 * recorded call, the notary first; a summary of the stored segments (how many, how long, one hash
 * over all their hashes, each person's share); and the appendix that lists every segment.
 */

export interface RecordingFacts {
  people: PersonRecording[];
  segments: RecordedSegmentEntry[];
  segmentsDigest: string;
  totalMs: number;
}

/** The part of the page writer these sections use (certificate-pages.ts). */
export interface RecordingWriter {
  heading(text: string, size: number, font?: PDFFont): void;
  paragraph(text: string, options?: { font?: PDFFont; size?: number; indent?: number; gapAfter?: number }): void;
  gap(height: number): void;
}

const roleOrder = { notary: 0, signer: 1, witness: 2, observer: 3 } as const;
const who = (person: PersonRecording) => `${person.name} (${person.role})`;
const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** The notary first, then signers, witnesses and observers, each in the job's order. */
function inOrder(people: PersonRecording[]): PersonRecording[] {
  return people
    .map((person, index) => ({ person, index }))
    .sort((a, b) => roleOrder[a.person.role] - roleOrder[b.person.role] || a.index - b.index)
    .map(({ person }) => person);
}

/** Each person's time out of the recorded call, or "none" for a person who had none. */
export function writeInterruptions(writer: RecordingWriter, people: PersonRecording[], timeZone: string): void {
  writer.gap(6);
  writer.paragraph(
    `Out of the recorded call (while admitted and recorded, none of the person's audio or video was stored for more than ${interruptionListedMs / 1000} seconds):`,
    { size: 9 },
  );
  for (const person of inOrder(people)) {
    if (!person.wasInRecordedCall) {
      writer.paragraph(`${who(person)}: not admitted to the call while it was recorded.`, { indent: 12, size: 9 });
    } else if (person.interruptions.length === 0) {
      writer.paragraph(`${who(person)}: none longer than ${interruptionListedMs / 1000} seconds.`, { indent: 12, size: 9 });
    } else {
      const spans = person.interruptions.map(
        (gap) => `${formatRecordSpan(gap.from, gap.to, timeZone)} (${formatDuration(gap.to.getTime() - gap.from.getTime())})`,
      );
      writer.paragraph(`${who(person)}: ${spans.join('; ')}.`, { indent: 12, size: 9 });
    }
  }
}

/** How many segments, how long, the hash over all of them, and each person's share. */
export function writeSegmentSummary(writer: RecordingWriter, recording: RecordingFacts, fonts: { mono: PDFFont }): void {
  writer.gap(6);
  writer.paragraph(
    // No sum of segment lengths: one person's segments overlap where their browser reconnected, so a
    // sum would claim more recorded time than anyone had. Each person's coverage is the union.
    `Recorded media: ${plural(recording.segments.length, 'stored segment')}, listed with their SHA-256 in the appendix.`,
    { size: 9 },
  );
  for (const person of inOrder(recording.people).filter((candidate) => candidate.segmentCount > 0 || candidate.wasInRecordedCall)) {
    writer.paragraph(`${who(person)}: ${plural(person.segmentCount, 'segment')} covering ${formatDuration(person.recordedMs)} of the call.`, {
      indent: 12,
      size: 9,
    });
  }
  writer.paragraph('SHA-256 over the segments’ SHA-256 values (lowercase hex, one per line in the appendix’s order, joined by line feeds):', { size: 9 });
  writer.paragraph(recording.segmentsDigest, { font: fonts.mono, size: 8, indent: 12 });
}

/** The appendix: every stored segment, by start time, with whose it is, when, its size and SHA-256. */
export function writeSegmentAppendix(writer: RecordingWriter, recording: RecordingFacts, fonts: { mono: PDFFont }, timeZone: string): void {
  writer.heading('APPENDIX: RECORDING SEGMENTS', 14);
  writer.paragraph(
    `Each segment is a WebM file of one person's audio and video, stored under its SHA-256. ${plural(recording.segments.length, 'segment')}, in order of their start.`,
    { size: 9, gapAfter: 6 },
  );
  const nameOf = new Map(recording.people.map((person) => [person.participantId, who(person)]));
  recording.segments.forEach((segment, index) => {
    const seconds = Math.round((segment.endedAt.getTime() - segment.startedAt.getTime()) / 100) / 10;
    const name = nameOf.get(segment.participantId) ?? segment.participantId;
    writer.paragraph(
      `${index + 1}. ${name}, segment ${segment.sequence + 1}: from ${formatRecordTime(segment.startedAt, timeZone)}, ${seconds} seconds, ${segment.bytes} bytes`,
      { size: 8 },
    );
    writer.paragraph(segment.sha256, { font: fonts.mono, size: 7.5, indent: 12, gapAfter: 2 });
  });
}
