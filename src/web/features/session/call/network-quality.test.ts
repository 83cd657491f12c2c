import { describe, expect, it } from 'vitest';
import { lossBetween, rateNetwork, readNetworkSample, type NetworkSample, type StatsEntry } from './network-quality.ts';

const sample = (overrides: Partial<NetworkSample> = {}): NetworkSample => ({
  mediaRttMs: 40,
  signalRttMs: 30,
  availableOutgoingBitrate: 2_000_000,
  packetsReceived: 1000,
  packetsLost: 0,
  ...overrides,
});

describe('readNetworkSample', () => {
  it('reads the selected pair named by the transport and sums every inbound stream', () => {
    const entries: StatsEntry[] = [
      { id: 'T1', type: 'transport', selectedCandidatePairId: 'CP2' },
      { id: 'CP1', type: 'candidate-pair', state: 'failed', currentRoundTripTime: 9 },
      { id: 'CP2', type: 'candidate-pair', state: 'succeeded', currentRoundTripTime: 0.081, availableOutgoingBitrate: 1_200_000 },
      { id: 'IA', type: 'inbound-rtp', kind: 'audio', packetsReceived: 300, packetsLost: 3 },
      { id: 'IV', type: 'inbound-rtp', kind: 'video', packetsReceived: 700, packetsLost: 7 },
      { id: 'OV', type: 'outbound-rtp', kind: 'video', packetsSent: 900 },
    ];
    expect(readNetworkSample(entries, 55)).toEqual({
      mediaRttMs: 81,
      signalRttMs: 55,
      availableOutgoingBitrate: 1_200_000,
      packetsReceived: 1000,
      packetsLost: 10,
    });
  });

  it('falls back to the nominated succeeded pair and reports nothing it did not find', () => {
    const entries: StatsEntry[] = [{ id: 'CP', type: 'candidate-pair', state: 'succeeded', nominated: true, currentRoundTripTime: 0.2 }];
    expect(readNetworkSample(entries, null)).toEqual({
      mediaRttMs: 200,
      signalRttMs: null,
      availableOutgoingBitrate: null,
      packetsReceived: 0,
      packetsLost: 0,
    });
    expect(readNetworkSample([], null).mediaRttMs).toBeNull();
  });
});

describe('lossBetween', () => {
  it('measures loss over the packets that arrived since the previous sample', () => {
    expect(lossBetween(sample({ packetsReceived: 1000, packetsLost: 10 }), sample({ packetsReceived: 1090, packetsLost: 20 }))).toBeCloseTo(0.1);
  });

  it('says nothing about loss from too few packets or after counters restarted', () => {
    expect(lossBetween(sample({ packetsReceived: 1000 }), sample({ packetsReceived: 1010, packetsLost: 5 }))).toBeNull();
    expect(lossBetween(sample({ packetsReceived: 1000 }), sample({ packetsReceived: 50 }))).toBeNull();
  });
});

describe('rateNetwork', () => {
  it('rates a fast, clean connection good', () => {
    expect(rateNetwork(sample({ packetsReceived: 500 }), sample())).toBe('good');
  });

  it('rates fair when loss, round trip or bitrate crosses the fair limit', () => {
    expect(rateNetwork(sample(), sample({ packetsReceived: 1970, packetsLost: 30 }))).toBe('fair');
    expect(rateNetwork(null, sample({ signalRttMs: 320 }))).toBe('fair');
    expect(rateNetwork(null, sample({ availableOutgoingBitrate: 300_000 }))).toBe('fair');
  });

  it('rates poor when any measure crosses the poor limit, whatever the others say', () => {
    expect(rateNetwork(sample(), sample({ packetsReceived: 1900, packetsLost: 100 }))).toBe('poor');
    expect(rateNetwork(null, sample({ mediaRttMs: 900 }))).toBe('poor');
    expect(rateNetwork(null, sample({ availableOutgoingBitrate: 90_000 }))).toBe('poor');
  });

  it('stays unknown until something was measured', () => {
    expect(rateNetwork(null, sample({ mediaRttMs: null, signalRttMs: null, availableOutgoingBitrate: null, packetsReceived: 0 }))).toBe('unknown');
  });
});
