import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Event, MediaStreamTrack, RtpPacket, useOPUS, useVP8, Vp8RtpPayload } from 'werift';
import { DurationPosition, MediaRecorder, replaceSegmentSize, SegmentSizePosition, type StreamEvent } from 'werift/nonstandard';
import type { MediaKind, ParticipantRtpPacket, VideoRoom } from './video-provider.ts';

/** One closed WebM file (VP8 + Opus) of one participant, ready to be stored and hashed into the audit chain. */
export interface RecordedSegment {
  participantId: string;
  /** 0, 1, 2... per participant for this recording, in time order. */
  sequence: number;
  filePath: string;
  sha256: string;
  bytes: number;
  startedAt: Date;
  endedAt: Date;
}

export interface SegmentRecordingOptions {
  /** Where segment files are written; the caller moves or deletes them after `onSegment`. */
  directory: string;
  segmentMs?: number;
  onSegment(segment: RecordedSegment): Promise<void> | void;
  onError?: (error: unknown) => void;
}

export interface SegmentRecording {
  /** Closes every open segment (each reaches `onSegment`) and stops listening. */
  stop(): Promise<void>;
}

interface OpenSegment {
  sequence: number;
  filePath: string;
  startedAt: Date;
  tracks: Record<MediaKind, MediaStreamTrack>;
  recorder: MediaRecorder;
  packets: number;
  hasKeyframe: boolean;
  /** The whole file once werift's writer reached its end (duration known), kept in memory until then. */
  whole: Promise<Buffer>;
}

interface ParticipantRecording {
  participantId: string;
  /** The source (SSRC) of each kind written so far: a rejoin sends from a new one, on its own clock. */
  sources: Partial<Record<MediaKind, number>>;
  current: OpenSegment;
  /** The previous segment, still written until the current one has its first keyframe. */
  closing: OpenSegment | null;
}

/** How long a cut segment may take to reach its end in werift's writer before it is dropped. */
const END_WAIT_MS = 10_000;

/**
 * Collects what werift's WebM writer produces for one file in memory and, at its end, patches the
 * header's duration and segment size as werift's own file writer does (0.24.4). The file is then
 * written once, by us: werift's file writer appends with writes nothing awaits, so a failed write
 * (a full disk, a removed directory) was an unhandled rejection, and the file still changed after
 * its stop() gave up waiting.
 */
function collectWebm(stream: StreamEvent): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    stream.subscribe((output) => {
      if (output.saveToFile) chunks.push(output.saveToFile);
      if (!output.eol) return;
      const whole = Buffer.concat(chunks);
      Buffer.from(output.eol.durationElement).copy(whole, DurationPosition);
      replaceSegmentSize(whole.length).copy(whole, SegmentSizePosition);
      resolve(whole);
    });
  });
}

/**
 * Records every participant of a room from the RTP the hub receives, in segments of a few seconds:
 * each segment is closed (a whole, playable file) before the next is reported, so a crash loses at
 * most the open one. Each new segment starts with a keyframe the hub asks the publisher for.
 */
export function startSegmentRecording(room: VideoRoom, options: SegmentRecordingOptions): SegmentRecording {
  const segmentMs = options.segmentMs ?? 4000;
  const recordings = new Map<string, ParticipantRecording>();
  // Kept when a participant's recording pauses, so a returning participant's files never collide.
  const nextSequences = new Map<string, number>();
  const nextSequence = (participantId: string) => {
    const sequence = nextSequences.get(participantId) ?? 0;
    nextSequences.set(participantId, sequence + 1);
    return sequence;
  };
  const reported = new Map<string, number>();
  const nextReported = (participantId: string) => {
    const sequence = reported.get(participantId) ?? 0;
    reported.set(participantId, sequence + 1);
    return sequence;
  };
  const pending = new Set<Promise<void>>();
  let isStopped = false;
  fs.mkdirSync(options.directory, { recursive: true, mode: 0o700 });

  const openSegment = (participantId: string, sequence: number): OpenSegment => {
    const tracks = {
      audio: new MediaStreamTrack({ kind: 'audio', codec: useOPUS({ payloadType: 111 }) }),
      video: new MediaStreamTrack({ kind: 'video', codec: useVP8({ payloadType: 96 }) }),
    };
    const filePath = path.join(options.directory, `${encodeURIComponent(participantId)}-${String(sequence).padStart(6, '0')}.webm`);
    const stream: StreamEvent = new Event();
    const whole = collectWebm(stream);
    const recorder = new MediaRecorder({ stream, tracks: [tracks.video, tracks.audio], disableNtp: true, disableLipSync: true });
    recorder.onError.subscribe((error) => options.onError?.(error));
    room.requestKeyframe(participantId);
    return { sequence, filePath, startedAt: new Date(), tracks, recorder, packets: 0, hasKeyframe: false, whole };
  };

  /**
   * Finishes a segment's file: null when nothing playable was written. werift ends a file only once a
   * frame reached it (its stop() reads the last frame's time); a segment cut before its first frame
   * came out of the jitter buffer (a connection dropped mid-keyframe, a loaded machine) never ends
   * and is dropped; when RTP carried a keyframe to it, that is reported as an error.
   */
  const finishFile = async (participantId: string, segment: OpenSegment): Promise<{ content: Buffer; endedAt: Date } | null> => {
    const endedAt = new Date();
    // werift's stop() waits 5 s for an end only its file writer announces; the end is awaited here.
    segment.recorder.stop().catch(() => undefined);
    for (const track of Object.values(segment.tracks)) track.stop();
    if (!segment.hasKeyframe || segment.packets === 0) return null;
    let timer: NodeJS.Timeout | undefined;
    const content = await Promise.race([
      segment.whole,
      new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), END_WAIT_MS);
      }),
    ]).finally(() => clearTimeout(timer));
    if (!content) {
      options.onError?.(new Error(`A recording segment of ${participantId} was dropped: no frame reached it before it was cut.`));
      return null;
    }
    await fs.promises.writeFile(segment.filePath, content, { mode: 0o600 });
    return { content, endedAt };
  };

  // Segments of one participant are numbered and reported in the order they were cut, without holes,
  // whichever finishes writing first.
  const reports = new Map<string, Promise<void>>();
  const closeSegment = (participantId: string, segment: OpenSegment): Promise<void> => {
    const finished = finishFile(participantId, segment);
    const previous = reports.get(participantId) ?? Promise.resolve();
    const report = previous
      .catch(() => undefined)
      .then(async () => {
        const file = await finished;
        if (!file) return;
        await options.onSegment({
          participantId,
          sequence: nextReported(participantId),
          filePath: segment.filePath,
          sha256: createHash('sha256').update(file.content).digest('hex'),
          bytes: file.content.length,
          startedAt: segment.startedAt,
          endedAt: file.endedAt,
        });
      });
    reports.set(participantId, report);
    return report;
  };

  const track = (work: Promise<void>) => {
    const guarded = work.catch((error: unknown) => options.onError?.(error));
    pending.add(guarded);
    void guarded.finally(() => pending.delete(guarded));
  };

  const unsubscribe = room.onRtp((event: ParticipantRtpPacket) => {
    if (isStopped) return;
    const packet = RtpPacket.deSerialize(event.packet);
    let recording = recordings.get(event.participantId);
    const source = recording?.sources[event.kind];
    if (recording && source !== undefined && source !== packet.header.ssrc) {
      // The participant came back on a new connection: its timestamps start from another origin, and
      // one file mixing both would claim hours. What was written is closed; a new segment begins.
      recordings.delete(event.participantId);
      for (const segment of recording.closing ? [recording.closing, recording.current] : [recording.current]) track(closeSegment(event.participantId, segment));
      recording = undefined;
    }
    if (!recording) {
      recording = {
        participantId: event.participantId,
        sources: {},
        current: openSegment(event.participantId, nextSequence(event.participantId)),
        closing: null,
      };
      recordings.set(event.participantId, recording);
    }
    recording.sources[event.kind] = packet.header.ssrc;
    const { current, closing } = recording;
    if (event.kind === 'video' && !current.hasKeyframe && Vp8RtpPayload.deSerialize(packet.payload).isKeyframe) {
      current.hasKeyframe = true;
      if (closing) {
        recording.closing = null;
        track(closeSegment(recording.participantId, closing));
      }
    }
    for (const segment of recording.closing ? [recording.closing, current] : [current]) {
      segment.packets += 1;
      segment.tracks[event.kind].writeRtp(packet.clone());
    }
  });

  const rotate = () => {
    for (const recording of recordings.values()) {
      const { current, closing } = recording;
      if (current.packets === 0) {
        // Nothing arrived for a whole segment: the participant is gone; a new segment opens when they send again.
        recordings.delete(recording.participantId);
        for (const segment of closing ? [closing, current] : [current]) track(closeSegment(recording.participantId, segment));
      } else if (!closing) {
        // The current segment is written on until the next one starts with a keyframe: no gap between files.
        recording.closing = current;
        recording.current = openSegment(recording.participantId, nextSequence(recording.participantId));
      } else {
        // Still no keyframe since the last rotation: ask again and let the open pair run on.
        room.requestKeyframe(recording.participantId);
      }
    }
  };
  const timer = setInterval(rotate, segmentMs);
  timer.unref();

  return {
    async stop() {
      if (isStopped) return;
      isStopped = true;
      clearInterval(timer);
      unsubscribe();
      for (const recording of recordings.values()) {
        const segments = recording.closing ? [recording.closing, recording.current] : [recording.current];
        for (const segment of segments) track(closeSegment(recording.participantId, segment));
      }
      recordings.clear();
      while (pending.size > 0) await Promise.all([...pending]);
    },
  };
}
