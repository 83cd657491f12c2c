/** The network-quality indicator's levels; 'unknown' until the first measurement. */
export type NetworkQuality = 'unknown' | 'good' | 'fair' | 'poor';

/** One reading of the connection to the media hub, from getStats and the signaling ping. */
export interface NetworkSample {
  /** Round trip of the media path (selected candidate pair), in milliseconds. */
  mediaRttMs: number | null;
  /** Round trip of the signaling socket (ping/pong), in milliseconds. */
  signalRttMs: number | null;
  /** What the browser estimates it may send, in bits per second. */
  availableOutgoingBitrate: number | null;
  /** Totals over every inbound stream since the connection began. */
  packetsReceived: number;
  packetsLost: number;
}

/** The subset of an RTCStats entry read here (plain objects, so the rules run without a browser). */
export interface StatsEntry {
  id: string;
  type: string;
  [field: string]: unknown;
}

const numberOr = (value: unknown, fallback: number | null) => (typeof value === 'number' && Number.isFinite(value) ? value : fallback);

/** Reads a getStats report: the selected candidate pair's round trip and bitrate, inbound packet totals. */
export function readNetworkSample(entries: StatsEntry[], signalRttMs: number | null): NetworkSample {
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  const transport = entries.find((entry) => entry.type === 'transport' && typeof entry.selectedCandidatePairId === 'string');
  const pair =
    (transport ? byId.get(transport.selectedCandidatePairId as string) : undefined) ??
    entries.find((entry) => entry.type === 'candidate-pair' && entry.state === 'succeeded' && entry.nominated === true);
  const roundTripSeconds = numberOr(pair?.currentRoundTripTime, null);
  const inbound = entries.filter((entry) => entry.type === 'inbound-rtp');
  return {
    mediaRttMs: roundTripSeconds === null ? null : Math.round(roundTripSeconds * 1000),
    signalRttMs,
    availableOutgoingBitrate: numberOr(pair?.availableOutgoingBitrate, null),
    packetsReceived: inbound.reduce((total, entry) => total + (numberOr(entry.packetsReceived, 0) ?? 0), 0),
    packetsLost: inbound.reduce((total, entry) => total + Math.max(0, numberOr(entry.packetsLost, 0) ?? 0), 0),
  };
}

/** Share of packets lost between two samples (0 to 1); null when too few packets arrived to tell. */
export function lossBetween(previous: NetworkSample | null, current: NetworkSample): number | null {
  const received = current.packetsReceived - (previous?.packetsReceived ?? 0);
  const lost = current.packetsLost - (previous?.packetsLost ?? 0);
  if (received < 0 || lost < 0) return null; // a new connection started counting again
  const expected = received + lost;
  return expected < 20 ? null : lost / expected;
}

export const qualityLimits = {
  fair: { lossRatio: 0.02, rttMs: 250, bitrate: 500_000 },
  poor: { lossRatio: 0.08, rttMs: 600, bitrate: 150_000 },
} as const;

/**
 * The level shown to the person: poor or fair as soon as one measure crosses its limit (loss, the
 * worse of the two round trips, the bitrate the browser may send), good when the others allow it.
 */
export function rateNetwork(previous: NetworkSample | null, current: NetworkSample): NetworkQuality {
  const loss = lossBetween(previous, current);
  const rtts = [current.mediaRttMs, current.signalRttMs].filter((value): value is number => value !== null);
  const rtt = rtts.length > 0 ? Math.max(...rtts) : null;
  const bitrate = current.availableOutgoingBitrate;
  if (loss === null && rtt === null && bitrate === null) return 'unknown';
  const crosses = (limits: { lossRatio: number; rttMs: number; bitrate: number }) =>
    (loss !== null && loss > limits.lossRatio) || (rtt !== null && rtt > limits.rttMs) || (bitrate !== null && bitrate < limits.bitrate);
  if (crosses(qualityLimits.poor)) return 'poor';
  if (crosses(qualityLimits.fair)) return 'fair';
  return 'good';
}

export const qualitySentences: Record<NetworkQuality, string> = {
  unknown: 'Checking your connection…',
  good: 'Your connection is good.',
  fair: 'Your connection is fair: video may be less sharp.',
  poor: 'Your connection is poor: video may freeze. Move closer to your router or close other apps that use the network.',
};
