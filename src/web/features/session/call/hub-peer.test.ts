import { describe, expect, it } from 'vitest';
import { framesEncodedOf, readServerMessage } from './hub-peer.ts';

describe('readServerMessage', () => {
  it('reads a message of the contract', () => {
    const offer = { type: 'offer', sdp: 'v=0', publish: { audio: '0', video: '1' }, subscriptions: [{ mid: '2', kind: 'video', participantId: 'notary' }] };
    expect(readServerMessage(JSON.stringify(offer))).toEqual(offer);
    expect(readServerMessage('{"type":"pong","at":12}')).toEqual({ type: 'pong', at: 12 });
  });

  it('drops what is not JSON or not in the contract', () => {
    expect(readServerMessage('not json')).toBeNull();
    expect(readServerMessage('{"type":"launch"}')).toBeNull();
    expect(readServerMessage('{"type":"offer","sdp":""}')).toBeNull();
  });
});

describe('framesEncodedOf', () => {
  it('counts the frames of the video sent, not audio or what arrives', () => {
    const report = new Map<string, unknown>([
      ['a', { type: 'outbound-rtp', kind: 'audio', packetsSent: 90 }],
      ['v', { type: 'outbound-rtp', kind: 'video', framesEncoded: 119 }],
      ['in', { type: 'inbound-rtp', kind: 'video', framesDecoded: 400 }],
    ]);
    expect(framesEncodedOf(report)).toBe(119);
    expect(framesEncodedOf(new Map())).toBe(0);
  });
});
