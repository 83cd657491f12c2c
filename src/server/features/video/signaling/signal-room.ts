import { and, asc, eq } from 'drizzle-orm';
import type { VideoRole } from '#shared/video.ts';
import { videoChangedMessage, type SignalPeer, type SignalServerMessage } from '#shared/video-signaling.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { jobParticipants, users, videoSessionParticipants } from '#server/db/schema/index.ts';
import type { RealtimeProvider } from '#server/providers/realtime/realtime.ts';
import type { ConnectionState, ParticipantOffer, VideoRoom } from '#server/providers/video/video-provider.ts';
import { findRunningRecording } from '../recording/recordings.service.ts';
import { toParticipantId } from '../video-access.ts';

/** One open signaling socket, after its hello was accepted. */
export interface SignalConnection {
  readonly participantId: string;
  readonly role: VideoRole;
  send(message: SignalServerMessage): void;
  close(code: number, reason: string): void;
}

export interface SignalRoomDeps {
  db: DbOrTx;
  realtime: RealtimeProvider;
  log: { warn(object: unknown, message: string): void };
}

type RecordingMessage = Extract<SignalServerMessage, { type: 'recording' }>['recording'];

const videoChanged = JSON.stringify(videoChangedMessage);

export function offerMessage(offer: ParticipantOffer): SignalServerMessage {
  return { type: 'offer', sdp: offer.offer.sdp, publish: offer.publish, subscriptions: offer.subscriptions };
}

/** The running recording of a session as the `recording` message says it. */
export async function readRecordingMessage(db: DbOrTx, sessionId: string): Promise<RecordingMessage> {
  const running = await findRunningRecording(db, sessionId);
  return running ? { recordingId: running.id, startedAt: running.startedAt.toISOString() } : null;
}

/**
 * The signaling side of one session's media room on this instance: who has a socket open, their
 * connection to the hub, mute and camera state, and the recording everyone is told about. `peers`
 * and `recording` go to every socket whenever any of it changes, including when the job's channel
 * says the session, its lobby or its recording changed (`video.changed`, from any instance).
 */
export class SignalRoom {
  private readonly connections = new Map<string, SignalConnection>();
  private readonly connectionStates = new Map<string, ConnectionState>();
  private readonly mediaStates = new Map<string, { audioMuted: boolean; videoOff: boolean }>();
  private readonly unsubscribes: (() => unknown)[] = [];
  private lastRecording = 'null';
  private joining: Promise<void> = Promise.resolve();
  private refreshing: Promise<void> | null = null;
  private isRefreshRequested = false;
  private isClosed = false;

  constructor(
    readonly sessionId: string,
    readonly jobId: string,
    readonly room: VideoRoom,
    private readonly deps: SignalRoomDeps,
  ) {
    this.unsubscribes.push(
      room.onRenegotiation((offer) => this.connections.get(offer.participantId)?.send(offerMessage(offer))),
      room.onConnectionState(({ participantId, state }) => {
        this.connectionStates.set(participantId, state);
        this.refresh();
      }),
    );
    this.listen().catch((error: unknown) => deps.log.warn({ err: error, sessionId }, 'signaling room cannot hear the job channel'));
  }

  private async listen(): Promise<void> {
    const unsubscribe = await this.deps.realtime.subscribe(`job:${this.jobId}`, (message) => {
      if (message === videoChanged) this.refresh();
    });
    if (this.isClosed) await unsubscribe();
    else this.unsubscribes.push(unsubscribe);
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  /** Adds a socket; another socket of the same participant is closed (4409) and replaced. */
  attach(connection: SignalConnection, replacedCode: number): void {
    const previous = this.connections.get(connection.participantId);
    this.connections.set(connection.participantId, connection);
    if (previous && previous !== connection) previous.close(replacedCode, 'replaced');
  }

  /**
   * Puts the socket's participant into the media room and returns the first offer; joins run one
   * after another, and a socket replaced meanwhile does not join (null).
   */
  join(connection: SignalConnection): Promise<ParticipantOffer | null> {
    const joined = this.joining.then(async () =>
      this.connections.get(connection.participantId) === connection ? this.room.join(connection.participantId) : null,
    );
    this.joining = joined.then(
      () => undefined,
      () => undefined,
    );
    return joined;
  }

  /** Removes a socket if it is still the participant's current one, and takes them out of the media room. */
  async detach(connection: SignalConnection): Promise<boolean> {
    if (this.connections.get(connection.participantId) !== connection) return false;
    this.connections.delete(connection.participantId);
    this.mediaStates.delete(connection.participantId);
    await this.room.leave(connection.participantId).catch((error: unknown) => this.deps.log.warn({ err: error }, 'leaving the media room failed'));
    this.connectionStates.set(connection.participantId, 'closed');
    this.refresh();
    return true;
  }

  setMediaState(participantId: string, state: { audioMuted: boolean; videoOff: boolean }): void {
    this.mediaStates.set(participantId, state);
    this.refresh();
  }

  /** Sends `peers` and (when it changed) `recording` to everyone; coalesces calls made while one runs. */
  refresh(): void {
    if (this.isClosed) return;
    if (this.refreshing) {
      this.isRefreshRequested = true;
      return;
    }
    this.refreshing = this.broadcastState()
      .catch((error: unknown) => this.deps.log.warn({ err: error, sessionId: this.sessionId }, 'signaling room refresh failed'))
      .finally(() => {
        this.refreshing = null;
        if (this.isRefreshRequested) {
          this.isRefreshRequested = false;
          this.refresh();
        }
      });
  }

  /** Everyone admitted to the session, as the room sees them now. */
  async readPeers(): Promise<SignalPeer[]> {
    const rows = await this.deps.db
      .select({ row: videoSessionParticipants, userName: users.name, jobName: jobParticipants.name })
      .from(videoSessionParticipants)
      .innerJoin(users, eq(users.id, videoSessionParticipants.userId))
      .leftJoin(jobParticipants, eq(jobParticipants.id, videoSessionParticipants.jobParticipantId))
      .where(and(eq(videoSessionParticipants.sessionId, this.sessionId), eq(videoSessionParticipants.lobbyState, 'admitted')))
      .orderBy(asc(videoSessionParticipants.joinedAt));
    return rows.map(({ row, userName, jobName }) => {
      const participantId = toParticipantId(row);
      const media = this.mediaStates.get(participantId);
      return {
        participantId,
        name: jobName ?? userName,
        role: row.role,
        connectionState: this.connectionStates.get(participantId) ?? 'new',
        isAway: !this.connections.has(participantId),
        audioMuted: media?.audioMuted ?? false,
        videoOff: media?.videoOff ?? false,
      };
    });
  }

  private async broadcastState(): Promise<void> {
    const peers = await this.readPeers();
    const recording = await readRecordingMessage(this.deps.db, this.sessionId);
    const isRecordingNew = JSON.stringify(recording) !== this.lastRecording;
    this.lastRecording = JSON.stringify(recording);
    for (const connection of this.connections.values()) {
      connection.send({ type: 'peers', peers });
      if (isRecordingNew) connection.send({ type: 'recording', recording });
    }
  }

  /** Sends the current recording to one socket (a newcomer) and remembers it as what the room was told. */
  async sendRecording(connection: SignalConnection): Promise<void> {
    const recording = await readRecordingMessage(this.deps.db, this.sessionId);
    connection.send({ type: 'recording', recording });
  }

  /** Closes every socket with `code` (they leave the media room) and stops listening. */
  async close(code: number, reason: string): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    const connections = [...this.connections.values()];
    this.connections.clear();
    for (const connection of connections) connection.close(code, reason);
    for (const unsubscribe of this.unsubscribes.splice(0)) await unsubscribe();
  }
}
