import { describe, expect, it } from 'vitest';
import { DelayRecorder, RateMeter, SequenceLossCounter } from './media-stats.ts';

describe('media stats', () => {
  it('averages bitrate over the last complete seconds and forgets old traffic', () => {
    let now = 10_000;
    const meter = new RateMeter(3, () => now);
    for (let second = 0; second < 3; second++) {
      meter.add(1000);
      meter.add(500);
      now += 1000;
    }
    expect(meter.bitsPerSecond()).toBe(1500 * 8);
    expect(meter.total).toBe(4500);
    expect(meter.packets).toBe(6);
    now += 10_000;
    expect(meter.bitsPerSecond()).toBe(0);
    expect(meter.total).toBe(4500);
  });

  it('counts missing sequence numbers across a wrap, ignoring late packets', () => {
    const counter = new SequenceLossCounter();
    for (const sequence of [65_533, 65_534, 0, 1, 3, 2, 6]) counter.add(sequence);
    // 65533..6 is 10 numbers; 7 arrived (2 late but present); 65535, 4 and 5 are missing.
    expect(counter.expected).toBe(10);
    expect(counter.lost).toBe(3);
  });

  it('reports the bucket of the 50th and 99th percentile of forwarding delays', () => {
    const recorder = new DelayRecorder();
    expect(recorder.snapshot()).toMatchObject({ count: 0, p50Micros: 0, p99Micros: 0 });
    for (let i = 0; i < 98; i++) recorder.record(30);
    recorder.record(700);
    recorder.record(250_000);
    const snapshot = recorder.snapshot();
    expect(snapshot.count).toBe(100);
    expect(snapshot.p50Micros).toBe(50);
    expect(snapshot.p99Micros).toBe(1000);
    expect(snapshot.maxMicros).toBe(250_000);
    expect(snapshot.counts.at(-1)).toBe(1);
  });
});
