/**
 * Windows of measurement for the media hub benchmark: CPU of the hub (this process), of Chromium
 * (this process's descendants) and of the whole machine; the hub's forwarding delays, ingress loss
 * and bitrate; and the frames each page encoded, received, decoded and dropped.
 */
import os from 'node:os';
import type { DelayHistogram, VideoRoom } from '#server/providers/video/video-provider.ts';
import { readDescendantsCpuMs, readMachineBusyMs } from './proc-cpu.ts';
import type { BenchParticipant, PageFrames } from './video-participants.ts';

export interface Snapshot {
  at: number;
  hubCpuMs: number;
  browserCpuMs: number | null;
  machineBusyMs: number;
  delays: DelayHistogram[];
  hubPacketsReceived: number;
  hubPacketsLost: number;
  hubBytesReceived: number;
  hubBytesSent: number;
  /** Participants whose connection the hub does not see as connected (werift reports failed or disconnected). */
  notConnected: number;
  frames: PageFrames[];
}

export interface WindowFigures {
  seconds: number;
  /** CPU as a share of one core (100 = one core busy); the machine has os.cpus().length cores. */
  hubCpuPercent: number;
  browserCpuPercent: number | null;
  /** Everything else on the machine (other sessions' tests, the kernel's softirq work) in the same unit. */
  otherCpuPercent: number | null;
  machineBusyPercent: number;
  forwardCount: number;
  /** Upper bound of the bucket holding the 99th percentile of forwarding delays in the window, ms. */
  forwardP99Ms: number;
  /**
   * Packets missing from the publishers' sequence numbers at the end of the window minus those
   * missing at its start, over the packets expected; retransmissions can make it negative (shown as 0).
   */
  hubLossPercent: number;
  notConnected: number;
  hubInMbps: number;
  hubOutMbps: number;
  /** Mean frame rate the senders encoded, and the lowest. */
  sentFps: number;
  minSentFps: number;
  /** Per received video stream: frames decoded per second; mean and lowest. */
  decodedFps: number;
  minDecodedFps: number;
  /** framesDropped / (framesDecoded + framesDropped) at the receivers, percent. */
  droppedPercent: number;
  /** Lowest ratio, over received streams, of the frames decoded to the frames its sender encoded. */
  minDecodedToSent: number;
  streams: number;
  senderLimits: string[];
}

export async function takeSnapshot(rooms: VideoRoom[], participants: BenchParticipant[]): Promise<Snapshot> {
  const frames = await Promise.all(participants.map((participant) => participant.frames()));
  const own = process.cpuUsage();
  const stats = rooms.map((room) => room.getStats());
  const sum = (pick: (p: (typeof stats)[number]['participants'][number]) => number) =>
    stats.reduce((total, room) => total + room.participants.reduce((inner, p) => inner + pick(p), 0), 0);
  return {
    at: Date.now(),
    hubCpuMs: (own.user + own.system) / 1000,
    browserCpuMs: readDescendantsCpuMs(process.pid),
    machineBusyMs: readMachineBusyMs(),
    delays: stats.map((room) => room.forwardingDelay),
    hubPacketsReceived: sum((p) => p.packetsReceived),
    hubPacketsLost: sum((p) => p.packetsLost),
    hubBytesReceived: sum((p) => p.bytesReceived),
    hubBytesSent: sum((p) => p.bytesSent),
    notConnected: sum((p) => (p.connectionState === 'connected' ? 0 : 1)),
    frames,
  };
}

/** The 99th percentile (bucket upper bound, ms) of the delays recorded between two snapshots of the same rooms. */
function windowP99Ms(before: DelayHistogram[], after: DelayHistogram[]): { count: number; p99Ms: number } {
  const bounds = after[0]?.boundsMicros ?? [];
  const counts = new Array<number>(bounds.length + 1).fill(0);
  after.forEach((histogram, roomIndex) => {
    histogram.counts.forEach((count, index) => {
      counts[index] = (counts[index] ?? 0) + count - (before[roomIndex]?.counts[index] ?? 0);
    });
  });
  const total = counts.reduce((sum, count) => sum + count, 0);
  if (total === 0) return { count: 0, p99Ms: 0 };
  const rank = Math.ceil(total * 0.99);
  let seen = 0;
  for (let index = 0; index < counts.length; index += 1) {
    seen += counts[index] ?? 0;
    // Above the last bound the bucket is open: report the largest delay the rooms have seen.
    if (seen >= rank) return { count: total, p99Ms: (bounds[index] ?? Math.max(...after.map((h) => h.maxMicros))) / 1000 };
  }
  return { count: total, p99Ms: 0 };
}

const mean = (values: number[]) => (values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length);

export function compareSnapshots(before: Snapshot, after: Snapshot, participants: BenchParticipant[]): WindowFigures {
  const seconds = (after.at - before.at) / 1000;
  const oneCoreMs = after.at - before.at;
  const hubCpuPercent = ((after.hubCpuMs - before.hubCpuMs) / oneCoreMs) * 100;
  const browserCpuPercent = before.browserCpuMs === null || after.browserCpuMs === null ? null : ((after.browserCpuMs - before.browserCpuMs) / oneCoreMs) * 100;
  const machineBusyPercent = ((after.machineBusyMs - before.machineBusyMs) / oneCoreMs) * 100;
  const delays = windowP99Ms(before.delays, after.delays);
  const received = after.hubPacketsReceived - before.hubPacketsReceived;
  const lost = after.hubPacketsLost - before.hubPacketsLost;

  const sentFpsById = new Map<string, number>();
  const senderLimits = new Set<string>();
  participants.forEach((participant, index) => {
    const [start, end] = [before.frames[index], after.frames[index]];
    if (!start || !end) return;
    sentFpsById.set(participant.id, (end.framesEncoded - start.framesEncoded) / seconds);
    if (end.qualityLimitationReason !== 'none') senderLimits.add(end.qualityLimitationReason);
  });
  const decoded: number[] = [];
  const ratios: number[] = [];
  let droppedFrames = 0;
  let decodedFrames = 0;
  participants.forEach((_participant, index) => {
    const [start, end] = [before.frames[index], after.frames[index]];
    if (!start || !end) return;
    for (const [from, counters] of Object.entries(end.inbound)) {
      const earlier = start.inbound[from] ?? { framesDecoded: 0, framesDropped: 0, framesReceived: 0, packetsLost: 0 };
      const fps = (counters.framesDecoded - earlier.framesDecoded) / seconds;
      decoded.push(fps);
      const sent = sentFpsById.get(from);
      if (sent) ratios.push(fps / sent);
      droppedFrames += counters.framesDropped - earlier.framesDropped;
      decodedFrames += counters.framesDecoded - earlier.framesDecoded;
    }
  });
  const sent = [...sentFpsById.values()];
  return {
    seconds,
    hubCpuPercent,
    browserCpuPercent,
    otherCpuPercent: browserCpuPercent === null ? null : Math.max(0, machineBusyPercent - hubCpuPercent - browserCpuPercent),
    machineBusyPercent,
    forwardCount: delays.count,
    forwardP99Ms: delays.p99Ms,
    hubLossPercent: received + lost <= 0 ? 0 : Math.max(0, (lost / (received + lost)) * 100),
    notConnected: after.notConnected,
    hubInMbps: ((after.hubBytesReceived - before.hubBytesReceived) * 8) / seconds / 1e6,
    hubOutMbps: ((after.hubBytesSent - before.hubBytesSent) * 8) / seconds / 1e6,
    sentFps: mean(sent),
    minSentFps: sent.length === 0 ? 0 : Math.min(...sent),
    decodedFps: mean(decoded),
    minDecodedFps: decoded.length === 0 ? 0 : Math.min(...decoded),
    droppedPercent: droppedFrames + decodedFrames === 0 ? 0 : (droppedFrames / (droppedFrames + decodedFrames)) * 100,
    minDecodedToSent: ratios.length === 0 ? 0 : Math.min(...ratios),
    streams: decoded.length,
    senderLimits: [...senderLimits],
  };
}

export const cores = os.cpus().length;
