import { describe, expect, it } from 'vitest';
import { parseConfig } from './config.ts';

describe('ICE_SERVERS', () => {
  it('is empty when unset and gives the media hub the servers it lists', () => {
    expect(parseConfig({}).video.iceServers).toEqual([]);
    const json = JSON.stringify([
      { urls: 'stun:stun.example.test:3478' },
      { urls: ['turn:turn.example.test:3478?transport=udp', 'turns:turn.example.test:5349'], username: 'ron', credential: 'secret' },
    ]);
    expect(parseConfig({ ICE_SERVERS: json }).video.iceServers).toEqual([
      { urls: 'stun:stun.example.test:3478' },
      { urls: ['turn:turn.example.test:3478?transport=udp', 'turns:turn.example.test:5349'], username: 'ron', credential: 'secret' },
    ]);
  });

  it('stops startup with a sentence for malformed JSON, a wrong shape, a bad url or a TURN server without credentials', () => {
    expect(() => parseConfig({ ICE_SERVERS: '[{urls: "stun:x"}' })).toThrow(
      /^Invalid configuration: ICE_SERVERS must be a JSON array of \{urls, username\?, credential\?\}; it is not valid JSON/,
    );
    expect(() => parseConfig({ ICE_SERVERS: '{"urls":"stun:x"}' })).toThrow(/ICE_SERVERS must be a JSON array .*; it is not an array\.$/);
    expect(() => parseConfig({ ICE_SERVERS: '[{"urls":"stun:x"},{"urls":3}]' })).toThrow(
      /ICE_SERVERS must be a JSON array .*; entry 1 does not have that shape\.$/,
    );
    expect(() => parseConfig({ ICE_SERVERS: '[{"urls":"http://turn.example.test"}]' })).toThrow(
      'Invalid configuration: ICE_SERVERS entry 0: "http://turn.example.test" is not a stun:, turn: or turns: url.',
    );
    expect(() => parseConfig({ ICE_SERVERS: '[{"urls":"turn:turn.example.test:3478","username":"ron"}]' })).toThrow(
      'Invalid configuration: ICE_SERVERS entry 0: the TURN server turn:turn.example.test:3478 needs a username and a credential.',
    );
  });

  it('lists an ICE_SERVERS problem together with the others', () => {
    expect(() => parseConfig({ ICE_SERVERS: 'nope', PORT: 'x' })).toThrow(
      /PORT: .*; ICE_SERVERS must be a JSON array|ICE_SERVERS must be a JSON array.*; PORT: /,
    );
  });
});

describe('ICE_TRANSPORT_POLICY', () => {
  const turn = JSON.stringify([{ urls: 'turn:turn.example.test:3478', username: 'ron', credential: 'secret' }]);

  it('is all unless set to relay, which needs a TURN server', () => {
    expect(parseConfig({}).video.iceTransportPolicy).toBe('all');
    expect(parseConfig({ ICE_TRANSPORT_POLICY: 'relay', ICE_SERVERS: turn }).video.iceTransportPolicy).toBe('relay');
  });

  it('stops startup with a sentence for another value, or relay without a TURN server', () => {
    expect(() => parseConfig({ ICE_TRANSPORT_POLICY: 'turn' })).toThrow('Invalid configuration: ICE_TRANSPORT_POLICY must be all (any path) or relay');
    expect(() => parseConfig({ ICE_TRANSPORT_POLICY: 'relay', ICE_SERVERS: '[{"urls":"stun:stun.example.test"}]' })).toThrow(
      /ICE_TRANSPORT_POLICY=relay sends all media through a TURN server, but ICE_SERVERS names none/,
    );
  });
});

describe('request timeouts', () => {
  it('default to bounds a 50 MB upload on a 1 Mbit/s line fits in, with a stalled or trickling body cut far earlier', () => {
    const { timeouts } = parseConfig({});
    expect(timeouts).toEqual({ requestMs: 600_000, headersMs: 30_000, bodyWindowMs: 30_000, bodyMinBytesPerSecond: 1024, connectionIdleMs: 300_000 });
    const uploadSeconds = (50 * 1024 * 1024 * 8) / 1_000_000;
    expect(uploadSeconds * 1000).toBeLessThan(timeouts.requestMs);
    expect(1_000_000 / 8).toBeGreaterThan(timeouts.bodyMinBytesPerSecond * 10);
  });

  it('are set in seconds, fractions allowed, and refused when they contradict each other', () => {
    expect(parseConfig({ BODY_IDLE_SECONDS: '0.5', CONNECTION_IDLE_SECONDS: '0' }).timeouts).toMatchObject({ bodyWindowMs: 500, connectionIdleMs: 0 });
    expect(() => parseConfig({ HEADERS_TIMEOUT_SECONDS: '60', REQUEST_TIMEOUT_SECONDS: '30' })).toThrow(
      'HEADERS_TIMEOUT_SECONDS may not exceed REQUEST_TIMEOUT_SECONDS',
    );
    expect(() => parseConfig({ BODY_IDLE_SECONDS: '60', CONNECTION_IDLE_SECONDS: '90' })).toThrow(
      'CONNECTION_IDLE_SECONDS must be 0 (off) or at least twice BODY_IDLE_SECONDS',
    );
    expect(() => parseConfig({ REQUEST_TIMEOUT_SECONDS: '0' })).toThrow(/REQUEST_TIMEOUT_SECONDS/);
  });
});
