import { describe, expect, it } from 'vitest';
import { framesEncodedOf, judgeCameraSwitch, readServerMessage } from './hub-peer.ts';

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

describe('judgeCameraSwitch', () => {
  const every250 = (counts: number[]) => counts.map((framesEncoded, index) => ({ afterMs: index * 250, framesEncoded }));

  it('says a camera whose frames the encoder takes is sending', () => {
    expect(judgeCameraSwitch(every250([120, 120, 120, 120, 120, 126, 131]), 4_500)).toBe('sending');
  });

  it("does not count the previous camera's frames the encoder finishes after the switch (a busy machine)", () => {
    // Readings of a depth camera on a loaded machine: the encoder still had three frames of the
    // previous camera queued, then encodes nothing more.
    const queuedThenNothing = every250([215, 218, 218, 218, 218, 218, 218, 218, 218, 218, 218, 218, 218, 218, 218, 218, 218, 218, 218]);
    expect(judgeCameraSwitch(queuedThenNothing.slice(0, 3), 4_500)).toBe('waiting');
    expect(judgeCameraSwitch(queuedThenNothing, 4_500)).toBe('silent');
  });

  it('waits for frames until the check is over, then calls the camera silent', () => {
    expect(judgeCameraSwitch(every250([90, 90, 90, 90]), 4_500)).toBe('waiting');
    expect(judgeCameraSwitch(every250(Array.from({ length: 19 }, () => 90)), 4_500)).toBe('silent');
  });
});
