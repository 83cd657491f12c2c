import {
  signalClientMessageSchema,
  signalCloseCodes,
  signalHelloTimeoutMs,
  type SignalClientMessage,
  type SignalServerMessage,
  videoChangedMessage,
} from '#shared/video-signaling.ts';
import type { VideoRole } from '#shared/video.ts';
import type { Ctx } from '#server/lib/context.ts';
import { watchJobAccess, type ChannelEnd, type JobAccessWatch } from '#server/features/jobs/job-access-watch.ts';
import type { VideoProvider } from '#server/providers/video/video-provider.ts';
import { liveSessionsOf } from './live-sessions.ts';
import { admitHello, checkStillAdmitted } from './signal-admission.ts';
import { offerMessage, type SignalConnection, type SignalRoom } from './signal-room.ts';

const videoChanged = JSON.stringify(videoChangedMessage);

/** What the connection needs of the WebSocket. */
export interface SignalSocket {
  send(data: string): void;
  close(code: number, reason: string): void;
  isOpen(): boolean;
}

/**
 * One browser's signaling socket (src/shared/video-signaling.ts): hello within the time limit,
 * then the media room's offers and the browser's answers, candidates, ICE restarts and media
 * state, for as long as the person may be there (watchJobAccess + checkStillAdmitted).
 */
export class SignalSocketSession implements SignalConnection {
  participantId = '';
  role: VideoRole = 'observer';
  private room: SignalRoom | null = null;
  private watch: JobAccessWatch | null = null;
  private isEnded = false;
  private isOffered = false;
  private queue: Promise<void> = Promise.resolve();
  private readonly helloTimer: NodeJS.Timeout;

  constructor(
    private readonly ctx: Ctx,
    private readonly video: VideoProvider,
    private readonly sessionToken: string,
    private readonly socket: SignalSocket,
  ) {
    this.helloTimer = setTimeout(() => this.end({ code: signalCloseCodes.badMessage, reason: 'no hello in time' }), signalHelloTimeoutMs);
    this.helloTimer.unref();
  }

  send(message: SignalServerMessage): void {
    if (this.isEnded || !this.socket.isOpen()) return;
    // The contract sends welcome and the first offer before peers and recording: the room's
    // broadcasts skip a socket still joining, which gets the whole state right after its offer.
    if (!this.isOffered && (message.type === 'peers' || message.type === 'recording')) return;
    this.socket.send(JSON.stringify(message));
  }

  /** The server closes this socket (replaced, or the whole room closes): no leave, the room handles it. */
  close(code: number, reason: string): void {
    if (this.isEnded) return;
    this.isEnded = true;
    clearTimeout(this.helloTimer);
    void this.watch?.stop();
    this.socket.close(code, reason);
  }

  /** Every message, handled one at a time in arrival order. */
  onMessage(raw: string): void {
    this.queue = this.queue.then(() => this.handle(raw)).catch((error: unknown) => this.ctx.log.warn({ err: error }, 'signaling message failed'));
  }

  /** The socket closed (by the browser or the network): the person is away and leaves the media room. */
  onClosed(): void {
    const wasEnded = this.isEnded;
    this.isEnded = true;
    clearTimeout(this.helloTimer);
    void this.watch?.stop();
    if (!wasEnded) void this.leaveRoom();
  }

  private end(reason: ChannelEnd): void {
    if (this.isEnded) return;
    this.close(reason.code, reason.reason);
    void this.leaveRoom();
  }

  private async leaveRoom(): Promise<void> {
    const room = this.room;
    if (!room) return;
    const sessions = liveSessionsOf(this.video);
    if (await room.detach(this)) await sessions.closeIfIdle(room.sessionId);
  }

  private async handle(raw: string): Promise<void> {
    if (this.isEnded) return;
    let message: SignalClientMessage;
    try {
      message = signalClientMessageSchema.parse(JSON.parse(raw));
    } catch {
      return this.end({ code: signalCloseCodes.badMessage, reason: 'unreadable message' });
    }
    const room = this.room;
    if (!room) {
      if (message.type !== 'hello') return this.end({ code: signalCloseCodes.badMessage, reason: 'hello first' });
      return this.hello(message);
    }
    const { participantId } = this;
    try {
      switch (message.type) {
        case 'hello':
          return this.end({ code: signalCloseCodes.badMessage, reason: 'hello twice' });
        case 'answer':
          return await room.room.acceptAnswer(participantId, { type: 'answer', sdp: message.sdp });
        case 'candidate':
          return await room.room.addIceCandidate(participantId, message.candidate);
        case 'restart-ice':
          return this.send(offerMessage(await room.room.restartIce(participantId)));
        case 'media-state':
          return room.setMediaState(participantId, { audioMuted: message.audioMuted, videoOff: message.videoOff });
        case 'ping':
          return this.send({ type: 'pong', at: message.at });
      }
    } catch (error) {
      this.ctx.log.warn({ err: error, participantId, type: message.type }, 'signaling message not applied');
      this.send({ type: 'error', message: `The server could not apply your ${message.type}; reconnect if the video stops.` });
    }
  }

  private async hello(hello: { sessionId: string; token: string }): Promise<void> {
    clearTimeout(this.helloTimer);
    const admitted = await admitHello(this.ctx, hello);
    if (!admitted.isAdmitted) return this.end(admitted.end);
    if (this.isEnded) return;
    const { claims, jobId } = admitted;
    this.participantId = claims.participantId;
    this.role = claims.role;
    this.watch = await watchJobAccess(this.ctx, {
      jobId,
      sessionToken: this.sessionToken,
      // The room hears `video.changed` itself; each socket checks its own admission again.
      onJobMessage: (message) => {
        if (message === videoChanged) void this.watch?.recheck();
      },
      check: (personCtx) => checkStillAdmitted(personCtx, claims),
      end: (reason) => this.end(reason),
    });
    if (this.isEnded) return void this.watch.stop();
    const room = liveSessionsOf(this.video).openRoom(claims.sessionId, jobId, { db: this.ctx.db, realtime: this.ctx.realtime, log: this.ctx.log });
    room.attach(this, signalCloseCodes.replaced);
    this.room = room;
    const { iceServers, iceTransportPolicy } = this.ctx.config.video;
    this.send({ type: 'welcome', participantId: claims.participantId, role: claims.role, iceServers, iceTransportPolicy });
    let offer;
    try {
      offer = await room.join(this);
    } catch (error) {
      this.ctx.log.warn({ err: error, sessionId: claims.sessionId }, 'joining the media room failed');
      return this.end({ code: 1011, reason: 'media room unavailable' });
    }
    if (!offer) return;
    this.send(offerMessage(offer));
    this.isOffered = true;
    room.refresh();
    await room.sendRecording(this);
  }
}
