/**
 * One participant's audio or video as the others receive it. It outlives the participant's
 * connection: when they reconnect with a new SSRC, sequence numbers and timestamps carry on from
 * where the previous connection stopped, so receivers see one continuous stream.
 */
export class ContinuousSource {
  private inputSsrc: number | null = null;
  private sequenceOffset = 0;
  private timestampOffset = 0;
  private lastSequence: number | null = null;
  private lastTimestamp: number | null = null;
  private lastSentAt = 0;

  constructor(
    private readonly clockRate: number,
    private readonly now: () => number = Date.now,
  ) {}

  rewrite(header: { ssrc: number; sequenceNumber: number; timestamp: number }): { sequenceNumber: number; timestamp: number } {
    const now = this.now();
    if (this.inputSsrc !== header.ssrc) {
      if (this.lastSequence !== null && this.lastTimestamp !== null) {
        const elapsedTicks = Math.round(((now - this.lastSentAt) / 1000) * this.clockRate);
        this.sequenceOffset = (this.lastSequence + 1 - header.sequenceNumber + 0x10000) % 0x10000;
        this.timestampOffset = (this.lastTimestamp + Math.max(1, elapsedTicks) - header.timestamp + 2 ** 32) % 2 ** 32;
      }
      this.inputSsrc = header.ssrc;
    }
    const sequenceNumber = (header.sequenceNumber + this.sequenceOffset) % 0x10000;
    const timestamp = (header.timestamp + this.timestampOffset) % 2 ** 32;
    this.lastSequence = sequenceNumber;
    this.lastTimestamp = timestamp;
    this.lastSentAt = now;
    return { sequenceNumber, timestamp };
  }
}
