import fs from 'node:fs';
import path from 'node:path';
import type { StorageProvider } from '#server/providers/storage/storage.ts';
import { startSegmentRecording, type SegmentRecording } from '#server/providers/video/segment-recorder.ts';
import type { VideoProvider } from '#server/providers/video/video-provider.ts';
import { storeRecordingSegment } from '../recording/recordings.service.ts';
import { RoomRelay, type RelayDeps } from './room-relay.ts';
import { SignalRoom, type SignalRoomDeps } from './signal-room.ts';

export interface LiveSessionDeps extends SignalRoomDeps {
  storage: StorageProvider;
  log: SignalRoomDeps['log'] & { error(object: unknown, message: string): void };
}

interface RunningRecorder {
  recordingId: string;
  directory: string;
  recording: SegmentRecording;
}

/**
 * What runs on this instance for the live sessions of one media hub: the signaling rooms (sockets)
 * and the segment recorders. A session's room lives on one instance, its home; with Redis, sockets
 * on other instances reach it through the relay (room-relay.ts). The database says who may be
 * there and whether a recording runs, this says what is open here.
 */
export class LiveSessions {
  private readonly rooms = new Map<string, SignalRoom>();
  private readonly recorders = new Map<string, RunningRecorder>();
  private readonly flushing = new Map<string, { recordingId: string; done: Promise<void> }>();
  /** Set while the app serves rooms to other instances (a realtime provider with leases: Redis). */
  relay: RoomRelay | null = null;

  constructor(readonly video: VideoProvider) {}

  /** With Redis, this instance's rooms get a home lease and serve sockets relayed from other instances. */
  async startRelay(deps: RelayDeps): Promise<void> {
    const leases = deps.realtime.leases;
    if (!leases || this.relay) return;
    const relay = new RoomRelay(this, leases, deps);
    await relay.start();
    this.relay = relay;
  }

  async stopRelay(): Promise<void> {
    await this.relay?.stop();
    this.relay = null;
  }

  /** Where the session's room is: here (null, and it stays here while open) or the id of the instance that has it. */
  async locate(sessionId: string): Promise<string | null> {
    return this.relay ? this.relay.locate(sessionId) : null;
  }

  /**
   * Starts the session's recorder on the instance that has its room (this one when nobody has it):
   * the recorder records the media hub the browsers are connected to.
   */
  async startRecorderAtHome(sessionId: string, recordingId: string, dataDir: string, deps: LiveSessionDeps): Promise<void> {
    const homeId = await this.locate(sessionId);
    if (homeId === null || !this.relay) return this.startRecorder(sessionId, recordingId, dataDir, deps);
    await this.relay.command(homeId, { action: 'start-recorder', sessionId, recordingId });
  }

  /** stopRecorder, on the instance that has the session's room. */
  async stopRecorderAtHome(sessionId: string, recordingId?: string): Promise<void> {
    const homeId = await this.findOtherHome(sessionId);
    if (homeId === null || !this.relay) return this.stopRecorder(sessionId, recordingId);
    await this.relay.command(homeId, { action: 'stop-recorder', sessionId, ...(recordingId ? { recordingId } : {}) });
  }

  /** endSession here and, when another instance has the session's room, there. */
  async endSessionEverywhere(sessionId: string, code: number, reason: string): Promise<void> {
    const homeId = await this.findOtherHome(sessionId);
    await this.endSession(sessionId, code, reason);
    if (homeId !== null && this.relay) await this.relay.command(homeId, { action: 'end-session', sessionId });
  }

  /** The id of another instance that has the session's room, or null (this one, or nobody). */
  private async findOtherHome(sessionId: string): Promise<string | null> {
    if (!this.relay || this.isLiveHere(sessionId)) return null;
    const holder = await this.relay.findHome(sessionId);
    return holder === null || holder === this.relay.instanceId ? null : holder;
  }

  /** Whether this instance has the session's room or its recorder open. */
  isLiveHere(sessionId: string): boolean {
    return this.rooms.has(sessionId) || this.recorders.has(sessionId);
  }

  liveSessionIds(): string[] {
    return [...new Set([...this.rooms.keys(), ...this.recorders.keys()])];
  }

  /**
   * The signaling room of a session, opened (with its media room) on first use. Synchronous, so a
   * caller attaches its socket before anything can find the room idle and close it.
   */
  openRoom(sessionId: string, jobId: string, deps: SignalRoomDeps): SignalRoom {
    let room = this.rooms.get(sessionId);
    if (!room) {
      room = new SignalRoom(sessionId, jobId, this.video.createRoom(sessionId), deps);
      this.rooms.set(sessionId, room);
    }
    return room;
  }

  /**
   * Starts recording the session's media room (opened if nobody is connected yet): every closed
   * segment is stored with its SHA-256 in the audit chain, then its file is removed.
   */
  startRecorder(sessionId: string, recordingId: string, dataDir: string, deps: LiveSessionDeps): void {
    if (this.recorders.has(sessionId)) throw new Error(`a recorder already runs for session ${sessionId}`);
    const directory = path.join(dataDir, 'recording-segments', recordingId);
    const recording = startSegmentRecording(this.video.createRoom(sessionId), {
      directory,
      onSegment: async (segment) => {
        await storeRecordingSegment(deps, recordingId, segment);
        await fs.promises.rm(segment.filePath, { force: true });
      },
      onError: (error) => deps.log.error({ err: error, sessionId, recordingId }, 'recording a segment failed'),
    });
    this.recorders.set(sessionId, { recordingId, directory, recording });
  }

  /**
   * Stops the session's recorder (all of them, or only `recordingId`): the open segments are
   * closed and stored before this resolves; nothing received afterwards is recorded.
   */
  async stopRecorder(sessionId: string, recordingId?: string): Promise<void> {
    // A second stop (a double tap, a retry, finalize) waits for the flush under way, so the caller
    // that marks the recording stopped counts every segment.
    const flushing = this.flushing.get(sessionId);
    if (flushing && (!recordingId || flushing.recordingId === recordingId)) return flushing.done;
    const running = this.recorders.get(sessionId);
    if (!running || (recordingId && running.recordingId !== recordingId)) return;
    this.recorders.delete(sessionId);
    const done = (async () => {
      await running.recording.stop();
      // A segment that could not be stored stays on disk (logged as an error) and keeps its directory.
      await fs.promises.rmdir(running.directory).catch(() => undefined);
    })().finally(() => this.flushing.delete(sessionId));
    this.flushing.set(sessionId, { recordingId: running.recordingId, done });
    await done;
    await this.closeIfIdle(sessionId);
  }

  isRecording(sessionId: string): boolean {
    return this.recorders.has(sessionId);
  }

  /** Closes the media room when no socket is open and no recorder runs. */
  async closeIfIdle(sessionId: string): Promise<void> {
    if (this.recorders.has(sessionId)) return;
    const room = this.rooms.get(sessionId);
    if (room && room.connectionCount > 0) return;
    this.rooms.delete(sessionId);
    await room?.close(1000, 'idle');
    await this.video.findRoom(sessionId)?.close();
    if (!this.isLiveHere(sessionId)) await this.relay?.release(sessionId);
  }

  /** The session ended (finalize) or the instance shuts down: every socket closes with `code`, the recorder stops, the media room closes. */
  async endSession(sessionId: string, code: number, reason: string): Promise<void> {
    await this.stopRecorder(sessionId);
    const room = this.rooms.get(sessionId);
    this.rooms.delete(sessionId);
    await room?.close(code, reason);
    await this.video.findRoom(sessionId)?.close();
    if (!this.isLiveHere(sessionId)) await this.relay?.release(sessionId);
  }

  async endAll(code: number, reason: string): Promise<void> {
    for (const sessionId of this.liveSessionIds()) await this.endSession(sessionId, code, reason);
  }
}

const registries = new WeakMap<VideoProvider, LiveSessions>();

/** The live sessions of a media hub (one registry per hub, so each test app has its own). */
export function liveSessionsOf(video: VideoProvider): LiveSessions {
  let sessions = registries.get(video);
  if (!sessions) {
    sessions = new LiveSessions(video);
    registries.set(video, sessions);
  }
  return sessions;
}
