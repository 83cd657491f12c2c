import type { DelayHistogram } from './video-provider.ts';

/** Bytes per one-second bucket over a short window; the rate averages the complete buckets. */
export class RateMeter {
  private readonly buckets: number[];
  private currentSecond = -1;
  total = 0;
  packets = 0;

  constructor(
    private readonly windowSeconds = 3,
    private readonly now: () => number = Date.now,
  ) {
    this.buckets = new Array<number>(windowSeconds + 1).fill(0);
  }

  add(bytes: number): void {
    this.advance();
    const index = this.currentSecond % this.buckets.length;
    this.buckets[index] = (this.buckets[index] ?? 0) + bytes;
    this.total += bytes;
    this.packets += 1;
  }

  /** Bits per second over the last `windowSeconds` complete seconds. */
  bitsPerSecond(): number {
    this.advance();
    let sum = 0;
    for (let i = 1; i <= this.windowSeconds; i++) {
      sum += this.buckets[(this.currentSecond - i + this.buckets.length * 2) % this.buckets.length] ?? 0;
    }
    return Math.round((sum * 8) / this.windowSeconds);
  }

  private advance(): void {
    const second = Math.floor(this.now() / 1000);
    if (this.currentSecond < 0) {
      this.currentSecond = second;
      return;
    }
    const steps = Math.min(second - this.currentSecond, this.buckets.length);
    for (let i = 1; i <= steps; i++) this.buckets[(this.currentSecond + i) % this.buckets.length] = 0;
    if (second > this.currentSecond) this.currentSecond = second;
  }
}

/** Counts RTP packets missing from a stream's sequence numbers (RFC 3550 A.1, without probation). */
export class SequenceLossCounter {
  private baseSequence = -1;
  private highestExtended = -1;
  received = 0;

  add(sequenceNumber: number): void {
    this.received += 1;
    if (this.baseSequence < 0) {
      this.baseSequence = sequenceNumber;
      this.highestExtended = sequenceNumber;
      return;
    }
    const highestLow = this.highestExtended & 0xffff;
    const delta = (sequenceNumber - highestLow + 0x10000) % 0x10000;
    // Forward by less than half the space: a newer packet (maybe after a wrap); else a late one.
    if (delta !== 0 && delta < 0x8000) this.highestExtended += delta;
  }

  get expected(): number {
    return this.baseSequence < 0 ? 0 : this.highestExtended - this.baseSequence + 1;
  }

  get lost(): number {
    return Math.max(0, this.expected - this.received);
  }
}

const boundsMicros = [50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000];

/** A fixed-bucket histogram of forwarding delays, in microseconds. */
export class DelayRecorder {
  private readonly counts = new Array<number>(boundsMicros.length + 1).fill(0);
  private count = 0;
  private maxMicros = 0;

  record(micros: number): void {
    let index = boundsMicros.findIndex((bound) => micros <= bound);
    if (index < 0) index = boundsMicros.length;
    this.counts[index] = (this.counts[index] ?? 0) + 1;
    this.count += 1;
    if (micros > this.maxMicros) this.maxMicros = micros;
  }

  snapshot(): DelayHistogram {
    return {
      boundsMicros: [...boundsMicros],
      counts: [...this.counts],
      count: this.count,
      p50Micros: this.percentile(0.5),
      p99Micros: this.percentile(0.99),
      maxMicros: Math.round(this.maxMicros),
    };
  }

  private percentile(fraction: number): number {
    if (this.count === 0) return 0;
    const rank = Math.ceil(this.count * fraction);
    let seen = 0;
    for (let i = 0; i < this.counts.length; i++) {
      seen += this.counts[i] ?? 0;
      if (seen >= rank) return boundsMicros[i] ?? Math.round(this.maxMicros);
    }
    return Math.round(this.maxMicros);
  }
}
