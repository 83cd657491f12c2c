import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { signalClientMessageSchema, signalCloseCodes, type SignalServerMessage } from '#shared/video-signaling.ts';
import { videoRoleSchema } from '#shared/video.ts';
import type { LeaseStore } from '#server/providers/realtime/realtime.ts';
import { AppError } from '#server/lib/errors.ts';
import type { LiveSessionDeps, LiveSessions } from './live-sessions.ts';
import { isRoomClientMessage, RoomMember, type MemberSink, type RoomClientMessage } from './room-member.ts';

/**
 * Rooms on several instances. A session's media room has a home: the instance that opened
 * it first, recorded in the lease store (Redis) under `video:room-home:<sessionId>` with an expiry the
 * home renews while the room lives. A signaling socket that lands on another instance is admitted
 * there (token, database, access watch), then relayed: its room messages go to the home over
 * `video:signal:<connection>:up` and the home's messages come back over `video:signal:<connection>:down`.
 * The browser's media goes to the home's media hub directly (its offer carries the home's addresses).
 */

/** How long a home holds a room without renewing it; a home that died loses its rooms after this. */
export const roomHomeTtlMs = 15_000;
/** How often a home renews its rooms, and a relayed socket says it is still there and checks its home. */
export const roomHomeRefreshMs = 5_000;
/** A relayed socket whose first answer from the home takes longer than this is closed (1011). */
const relayOpenTimeoutMs = 10_000;
/** A recorder command sent to the home waits this long for its answer (a stop flushes the open segments first). */
const commandTimeoutMs = 60_000;

/** The lease store key of a session's room home (its value: the home instance's id). */
export const homeKey = (sessionId: string) => `video:room-home:${sessionId}`;
const instanceChannel = (instanceId: string) => `video:instance:${instanceId}`;
const upChannel = (connectionId: string) => `video:signal:${connectionId}:up`;
const downChannel = (connectionId: string) => `video:signal:${connectionId}:down`;
const replyChannel = (commandId: string) => `video:reply:${commandId}`;

const openSchema = z.object({
  type: z.literal('open'),
  connectionId: z.uuid(),
  sessionId: z.uuid(),
  jobId: z.uuid(),
  participantId: z.string().min(1),
  role: videoRoleSchema,
  welcome: z.looseObject({ type: z.literal('welcome') }),
});
type OpenMessage = z.infer<typeof openSchema>;

/** What another instance asks of a session's home: the recorder runs where the room's media is. */
const commandSchema = z.object({
  type: z.literal('command'),
  commandId: z.uuid(),
  sessionId: z.uuid(),
  action: z.enum(['start-recorder', 'stop-recorder', 'end-session']),
  recordingId: z.uuid().optional(),
});
type CommandMessage = z.infer<typeof commandSchema>;
export type RelayCommand = Omit<CommandMessage, 'type' | 'commandId'>;
const instanceMessageSchema = z.discriminatedUnion('type', [openSchema, commandSchema]);

const upSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('signal'), message: signalClientMessageSchema }),
  z.object({ type: z.literal('alive') }),
  z.object({ type: z.literal('leave') }),
]);
type UpMessage = z.infer<typeof upSchema>;

type DownMessage = { type: 'signal'; message: SignalServerMessage } | { type: 'close'; code: number; reason: string };

/** What a socket does with the room it was admitted to, wherever the room is. */
export interface RoomLink {
  apply(message: RoomClientMessage): Promise<void>;
  /** The socket closed or must end: out of the room (not called after the room closed the socket). */
  leave(): Promise<void>;
}

export interface RelayDeps extends LiveSessionDeps {
  dataDir: string;
}

interface RemoteMember {
  member: RoomMember;
  lastHeardAt: number;
  queue: Promise<void>;
  unsubscribe: () => Promise<void>;
}

/** The relay of one instance's live sessions: its rooms' homes, the sockets it relays to other homes and those it serves for them. */
export class RoomRelay {
  readonly instanceId = randomUUID();
  private readonly remotes = new Map<string, RemoteMember>();
  private stopServing: (() => Promise<void>) | null = null;

  constructor(
    private readonly sessions: LiveSessions,
    private readonly leases: LeaseStore,
    private readonly deps: RelayDeps,
  ) {}

  /** Listens for sockets relayed from other instances and renews this instance's homes. */
  async start(): Promise<void> {
    const unsubscribe = await this.deps.realtime.subscribe(instanceChannel(this.instanceId), (raw) => {
      this.receive(raw).catch((error: unknown) => this.deps.log.warn({ err: error }, 'relayed signaling socket not served'));
    });
    const timer = setInterval(() => void this.keepHomes(), roomHomeRefreshMs);
    timer.unref();
    this.stopServing = async () => {
      clearInterval(timer);
      await unsubscribe();
    };
  }

  async stop(): Promise<void> {
    await this.stopServing?.();
    this.stopServing = null;
  }

  /** The instance a session's room lives on: this one (null) when it has the room open or nobody did; else the other's id. */
  async locate(sessionId: string): Promise<string | null> {
    if (this.sessions.isLiveHere(sessionId)) {
      await this.leases.hold(homeKey(sessionId), this.instanceId, roomHomeTtlMs);
      return null;
    }
    const holder = await this.leases.hold(homeKey(sessionId), this.instanceId, roomHomeTtlMs);
    return holder === this.instanceId ? null : holder;
  }

  /** The room closed here: another instance may open it next. */
  async release(sessionId: string): Promise<void> {
    await this.leases
      .release(homeKey(sessionId), this.instanceId)
      .catch((error: unknown) => this.deps.log.warn({ err: error, sessionId }, 'room home not released'));
  }

  private async keepHomes(): Promise<void> {
    for (const sessionId of this.sessions.liveSessionIds()) {
      try {
        const holder = await this.leases.hold(homeKey(sessionId), this.instanceId, roomHomeTtlMs);
        if (holder !== this.instanceId) this.deps.log.warn({ sessionId, holder }, 'another instance holds the home of a room open here');
      } catch (error) {
        this.deps.log.warn({ err: error, sessionId }, 'room home not renewed');
      }
    }
    const silentSince = Date.now() - roomHomeTtlMs;
    for (const [connectionId, remote] of this.remotes) {
      if (remote.lastHeardAt >= silentSince) continue;
      // The instance that had the socket is gone (or cut off): the person is away.
      remote.member.close(1011, 'relay lost');
      await this.leaveRemote(connectionId, remote);
    }
  }

  /** Who holds the session's room now (this instance's id, another's, or null), without taking it. */
  findHome(sessionId: string): Promise<string | null> {
    return this.leases.read(homeKey(sessionId));
  }

  // ---- the home's side: sockets and commands from other instances, served here ----

  private async receive(raw: string): Promise<void> {
    const message = instanceMessageSchema.parse(JSON.parse(raw));
    if (message.type === 'open') return this.serve(message);
    let reply: { ok: true } | { ok: false; message: string };
    try {
      await this.run(message);
      reply = { ok: true };
    } catch (error) {
      this.deps.log.warn({ err: error, sessionId: message.sessionId, action: message.action }, 'relayed media command failed');
      reply = { ok: false, message: error instanceof Error ? error.message : String(error) };
    }
    await this.deps.realtime.publish(replyChannel(message.commandId), JSON.stringify(reply));
  }

  private async run({ action, sessionId, recordingId }: CommandMessage): Promise<void> {
    switch (action) {
      case 'start-recorder':
        if (!recordingId) throw new Error('start-recorder needs a recording id');
        // The room may have closed meanwhile and another instance opened it: the recorder goes with the room.
        if ((await this.locate(sessionId)) !== null) throw new Error('the session moved to another instance');
        return this.sessions.startRecorder(sessionId, recordingId, this.deps.dataDir, this.deps);
      case 'stop-recorder':
        return this.sessions.stopRecorder(sessionId, recordingId);
      case 'end-session':
        return this.sessions.endSession(sessionId, signalCloseCodes.sessionEnded, 'session ended');
    }
  }

  private async serve(open: OpenMessage): Promise<void> {
    const { connectionId } = open;
    const publishDown = (message: DownMessage) =>
      this.deps.realtime
        .publish(downChannel(connectionId), JSON.stringify(message))
        .catch((error: unknown) => this.deps.log.warn({ err: error }, 'relayed signaling message not sent'));
    if ((await this.locate(open.sessionId)) !== null) {
      await publishDown({ type: 'close', code: 1011, reason: 'media room moved' });
      return;
    }
    const sink: MemberSink = {
      send: (message) => void publishDown({ type: 'signal', message }),
      close: (code, reason) => {
        void publishDown({ type: 'close', code, reason });
        const remote = this.remotes.get(connectionId);
        if (remote) void this.forget(connectionId, remote);
      },
    };
    const served: { remote?: RemoteMember } = {};
    const unsubscribe = await this.deps.realtime.subscribe(upChannel(connectionId), (message) => {
      if (served.remote) this.hear(connectionId, served.remote, message);
    });
    // Synchronous from opening the room to attaching the member, so no idle close comes between.
    const room = this.sessions.openRoom(open.sessionId, open.jobId, this.deps);
    const member = new RoomMember(open.participantId, open.role, room, sink, this.deps.log);
    const remote: RemoteMember = { member, lastHeardAt: Date.now(), queue: Promise.resolve(), unsubscribe };
    served.remote = remote;
    this.remotes.set(connectionId, remote);
    this.enqueue(remote, () => this.enter(connectionId, remote, open));
  }

  /** The member's work, one step at a time in arrival order. */
  private enqueue(remote: RemoteMember, step: () => Promise<unknown>): void {
    remote.queue = remote.queue.then(step).then(
      () => undefined,
      (error: unknown) => this.deps.log.warn({ err: error }, 'relayed signaling message failed'),
    );
  }

  private async enter(connectionId: string, remote: RemoteMember, open: OpenMessage): Promise<void> {
    const ended = await remote.member.enter(open.welcome as SignalServerMessage);
    if (!ended) return;
    remote.member.close(ended.code, ended.reason);
    await this.leaveRemote(connectionId, remote);
  }

  private hear(connectionId: string, remote: RemoteMember, raw: string): void {
    remote.lastHeardAt = Date.now();
    let message: UpMessage;
    try {
      message = upSchema.parse(JSON.parse(raw));
    } catch (error) {
      this.deps.log.warn({ err: error }, 'unreadable relayed signaling message');
      return;
    }
    if (message.type === 'alive') return;
    if (message.type === 'leave') {
      this.enqueue(remote, () => this.leaveRemote(connectionId, remote));
      return;
    }
    const signal = message.message;
    if (isRoomClientMessage(signal)) this.enqueue(remote, () => remote.member.apply(signal));
  }

  private async leaveRemote(connectionId: string, remote: RemoteMember): Promise<void> {
    await this.forget(connectionId, remote);
    if (await remote.member.leave()) await this.sessions.closeIfIdle(remote.member.room.sessionId);
  }

  private async forget(connectionId: string, remote: RemoteMember): Promise<void> {
    if (this.remotes.get(connectionId) !== remote) return;
    this.remotes.delete(connectionId);
    await remote.unsubscribe().catch(() => undefined);
  }

  // ---- the socket's side: a room whose home is another instance ----

  /**
   * Relays an admitted socket to the room on `homeId`: the home enters the participant (its
   * welcome and offers come back through `sink`) and applies what the browser sends.
   */
  async connect(homeId: string, open: Omit<OpenMessage, 'type' | 'connectionId'>, sink: MemberSink): Promise<RoomLink> {
    const { realtime, log } = this.deps;
    const connectionId = randomUUID();
    let isStopped = false;
    let markHeard: () => void = () => undefined;
    // Nothing goes up before the home answered (or the wait for it ended): the home subscribes to
    // the up channel before it answers, so a leave sent early is not lost.
    const heard = new Promise<void>((resolve) => (markHeard = resolve));
    let unsubscribe: () => Promise<void> = async () => undefined;
    let upQueue: Promise<void> = heard;
    const publishUp = (message: UpMessage): Promise<void> => {
      upQueue = upQueue
        .then(() => realtime.publish(upChannel(connectionId), JSON.stringify(message)))
        .catch((error: unknown) => log.warn({ err: error }, 'relayed signaling message not sent'));
      return upQueue;
    };
    const stop = () => {
      if (isStopped) return;
      isStopped = true;
      clearTimeout(openTimer);
      clearInterval(aliveTimer);
      void upQueue.then(() => unsubscribe());
    };
    const lost = (reason: string) => {
      if (isStopped) return;
      void publishUp({ type: 'leave' });
      stop();
      sink.close(1011, reason);
    };
    unsubscribe = await realtime.subscribe(downChannel(connectionId), (raw) => {
      markHeard();
      clearTimeout(openTimer);
      if (isStopped) return;
      const message = JSON.parse(raw) as DownMessage;
      if (message.type === 'signal') return sink.send(message.message);
      stop();
      sink.close(message.code, message.reason);
    });
    const openTimer = setTimeout(() => {
      markHeard();
      lost('media room unavailable');
    }, relayOpenTimeoutMs);
    openTimer.unref();
    // Tells the home this socket is still here, and closes it when the room's home is gone (its
    // lease expired or another instance opened the room anew): the browser reconnects there.
    const aliveTimer = setInterval(() => {
      void publishUp({ type: 'alive' });
      this.leases
        .read(homeKey(open.sessionId))
        .then((holder) => {
          if (holder !== homeId) lost('media room moved');
        })
        .catch((error: unknown) => log.warn({ err: error }, 'room home not checked'));
    }, roomHomeRefreshMs);
    aliveTimer.unref();
    const message: OpenMessage = { type: 'open', connectionId, ...open };
    await realtime.publish(instanceChannel(homeId), JSON.stringify(message));
    return {
      apply: async (signal) => {
        if (!isStopped) await publishUp({ type: 'signal', message: signal });
      },
      leave: async () => {
        if (isStopped) return;
        void publishUp({ type: 'leave' });
        stop();
      },
    };
  }

  /** Runs a recorder or session command on the session's home instance and waits for it (503 when the home does not answer). */
  async command(homeId: string, command: RelayCommand): Promise<void> {
    const { realtime } = this.deps;
    const commandId = randomUUID();
    let settle: (reply: { ok: boolean; message?: string }) => void = () => undefined;
    const replied = new Promise<{ ok: boolean; message?: string }>((resolve) => (settle = resolve));
    const unsubscribe = await realtime.subscribe(replyChannel(commandId), (raw) => settle(JSON.parse(raw) as { ok: boolean; message?: string }));
    const timer = setTimeout(() => settle({ ok: false, message: 'no answer' }), commandTimeoutMs);
    try {
      const message: CommandMessage = { type: 'command', commandId, ...command };
      await realtime.publish(instanceChannel(homeId), JSON.stringify(message));
      const reply = await replied;
      if (!reply.ok) {
        this.deps.log.warn(
          { sessionId: command.sessionId, action: command.action, homeId, reason: reply.message },
          'media command on the home instance failed',
        );
        throw new AppError(503, 'media_room_unavailable', 'The instance running this session’s media room did not carry this out; try again.');
      }
    } finally {
      clearTimeout(timer);
      await unsubscribe();
    }
  }
}
