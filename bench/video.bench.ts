/**
 * Benchmark of the media hub: the werift hub runs in this process; real Chromium
 * participants (one headless browser, one context each, fake camera and microphone) join it over
 * loopback.
 *
 *   npm run bench:video        (node --expose-gc --import tsx bench/video.bench.ts, 3-4.5 min)
 *
 * 1. Join: rooms of 2, 4 and 6 participants joining one after another; for each newcomer, ms from
 *    its join call (the hub's offer, getUserMedia, answer, ICE, DTLS, keyframe, decode) to the
 *    first frame of someone already there shown, to a frame of everyone shown, and until each one
 *    already there shows the newcomer (they are renegotiated by the hub).
 * 2. Cost: for the same rooms, this process's CPU (process.cpuUsage) and memory growth (RSS, and JS
 *    heap + buffers, after gc) over
 *    a steady window, forwarding only and then with startSegmentRecording into a temporary folder.
 * 3. Capacity: 1, 2, 3 … concurrent 3-person sessions while the hub side of the criterion
 *    (judgeStep below) holds, up to BENCH_VIDEO_MAX_SESSIONS; the last step good end to end and
 *    the last step the hub held are printed apart. At the end, every recorded segment reported is
 *    checked against its file on disk.
 *
 * Chromium (every encoder and decoder of every participant) runs on the same cores as the hub and
 * its CPU is shown beside the hub's, as is everything else the machine ran. Settings (environment):
 * BENCH_VIDEO_SIZES ("2,4,6"), BENCH_VIDEO_WINDOW (6 s), BENCH_VIDEO_SETTLE (3 s),
 * BENCH_VIDEO_MAX_SESSIONS (8), BENCH_VIDEO_BUDGET (270 s: no capacity step starts after it),
 * BENCH_VIDEO_BROWSER_NICE (0; e.g. 19 makes Chromium yield the CPU to the hub, and to every other
 * process on the machine too).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { createWeriftSfu } from '#server/providers/video/werift-sfu.ts';
import { startSegmentRecording, type RecordedSegment } from '#server/providers/video/segment-recorder.ts';
import { compareSnapshots, cores, takeSnapshot, type WindowFigures } from './video-measure.ts';
import { openSession, type BenchSession } from './video-sessions.ts';
import { launchBenchBrowser, type BenchBrowser } from './video-participants.ts';

const sizes = (process.env.BENCH_VIDEO_SIZES ?? '2,4,6').split(',').map(Number);
const windowMs = Number(process.env.BENCH_VIDEO_WINDOW ?? 6) * 1000;
const settleMs = Number(process.env.BENCH_VIDEO_SETTLE ?? 3) * 1000;
const maxSessions = Number(process.env.BENCH_VIDEO_MAX_SESSIONS ?? 8);
const budgetMs = Number(process.env.BENCH_VIDEO_BUDGET ?? 270) * 1000;
const browserNice = Number(process.env.BENCH_VIDEO_BROWSER_NICE ?? 0);

/** What makes a capacity step good; written down in docs/PERFORMANCE.md. */
const criterion = {
  maxForwardP99Ms: 20,
  maxHubLossPercent: 1,
  maxDroppedPercent: 1,
  /** Every receiver decodes at least this share of the frames its sender encoded. */
  minDecodedToSent: 0.9,
  /** Senders keep at least this share of the frame rate they encoded with one session. */
  minSentFpsToBaseline: 0.8,
};

const startedAt = Date.now();
const errors: unknown[] = [];
const onError = (error: unknown) => void errors.push(error);
// Removed on exit only: werift may still write a dropped segment's file after the recorder stopped.
const recordingDirectories: string[] = [];
process.on('exit', () => {
  for (const directory of recordingDirectories) fs.rmSync(directory, { recursive: true, force: true });
});
/** Reported segments, checked at the end against the files on disk (a reported hash must be of the whole file). */
const segmentChecks: { segment: RecordedSegment }[] = [];
function checkSegments(): string {
  const mismatched = segmentChecks.filter(({ segment }) => {
    const onDisk = fs.existsSync(segment.filePath) ? fs.statSync(segment.filePath).size : -1;
    return onDisk !== segment.bytes;
  });
  if (mismatched.length === 0) return `All ${segmentChecks.length} reported segments match their files on disk.`;
  const examples = mismatched
    .slice(0, 3)
    .map(
      ({ segment }) =>
        `${path.basename(segment.filePath)} reported ${segment.bytes} B, ${fs.existsSync(segment.filePath) ? fs.statSync(segment.filePath).size : 'no file'} on disk`,
    );
  return `Warning: ${mismatched.length} of ${segmentChecks.length} reported segments differ from their files on disk at the end of the run (${examples.join('; ')}).`;
}
const gc = (globalThis as { gc?: () => void }).gc;
/** RSS, and the JS heap plus buffers (less noisy than RSS, which keeps freed pages), after a gc; MB. */
const memoryMb = () => {
  gc?.();
  const usage = process.memoryUsage();
  return { rss: usage.rss / 2 ** 20, heap: (usage.heapUsed + usage.external) / 2 ** 20 };
};
const growth = (before: { rss: number; heap: number }, after: { rss: number; heap: number }, per: number) =>
  `${round((after.rss - before.rss) / per, 1)} / ${round((after.heap - before.heap) / per, 1)}`;
const round = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const percentile = (values: number[], fraction: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * fraction) - 1)] ?? NaN;
};
const p50max = (values: number[]) => `${round(percentile(values, 0.5))} / ${round(Math.max(...values))}`;

async function measureWindow(sessions: BenchSession[]): Promise<WindowFigures> {
  const rooms = sessions.map((session) => session.room);
  const participants = sessions.flatMap((session) => session.participants);
  const before = await takeSnapshot(rooms, participants);
  await sleep(windowMs);
  return compareSnapshots(before, await takeSnapshot(rooms, participants), participants);
}

const cpuCells = (figures: WindowFigures) =>
  [round(figures.hubCpuPercent), round(figures.browserCpuPercent ?? NaN), round(figures.otherCpuPercent ?? NaN)].join(' | ');

async function measureSizes(sfu: ReturnType<typeof createWeriftSfu>, media: BenchBrowser) {
  const joinRows: string[] = [];
  const costRows: string[] = [];
  const recordRows: string[] = [];
  for (const size of sizes) {
    const memoryBase = memoryMb();
    let session: BenchSession;
    try {
      session = await openSession(sfu, media, `size${size}`, size, onError);
    } catch (error) {
      const note = `not measured: ${error instanceof Error ? error.message : String(error)}`;
      for (const rows of [joinRows, costRows, recordRows]) rows.push(`| ${size} | ${note} |`);
      console.log(`  ${size} participants ${note}`);
      continue;
    }
    try {
      await sleep(settleMs);
      const forwarding = await measureWindow([session]);
      const memoryForwarding = memoryMb();
      const seenBy = session.joins.flatMap((join) => join.seenByMs);
      joinRows.push(
        `| ${size} | ${session.joins.length} | ${p50max(session.joins.map((j) => j.seesFirstMs))} | ${p50max(session.joins.map((j) => j.seesAllMs))} | ${p50max(seenBy)} |`,
      );
      costRows.push(
        `| ${size} | ${size * (size - 1)} | ${cpuCells(forwarding)} | ${round(forwarding.hubCpuPercent / size, 1)} | ${growth(memoryBase, memoryForwarding, 1)} | ${growth(memoryBase, memoryForwarding, size)} | ${round(forwarding.hubInMbps, 1)} / ${round(forwarding.hubOutMbps, 1)} | ${round(forwarding.forwardP99Ms)} | ${round(forwarding.sentFps)} / ${round(forwarding.decodedFps)} |`,
      );

      const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'open-ron-bench-video-'));
      recordingDirectories.push(directory);
      const segments: RecordedSegment[] = [];
      const recording = startSegmentRecording(session.room, { directory, onSegment: (segment) => void segments.push(segment), onError });
      try {
        await sleep(2000);
        const recorded = await measureWindow([session]);
        const memoryRecording = memoryMb();
        const stopStartedAt = Date.now();
        await recording.stop();
        const stopSeconds = (Date.now() - stopStartedAt) / 1000;
        const megabytes = segments.reduce((sum, segment) => sum + segment.bytes, 0) / 2 ** 20;
        segmentChecks.push(...segments.map((segment) => ({ segment })));
        recordRows.push(
          `| ${size} | ${cpuCells(recorded)} | ${round((recorded.hubCpuPercent - forwarding.hubCpuPercent) / size, 1)} | ${growth(memoryForwarding, memoryRecording, size)} | ${round(recorded.forwardP99Ms)} | ${segments.length} | ${round(megabytes, 2)} | ${round(stopSeconds, 1)} |`,
        );
      } finally {
        await recording.stop();
      }
    } finally {
      await session.close();
    }
    console.log(`  ${size} participants measured (${round((Date.now() - startedAt) / 1000)} s)`);
  }
  return { joinRows, costRows, recordRows };
}

/** Whether a capacity step is good and, if not, which side failed it. */
function judgeStep(figures: WindowFigures, baselineSentFps: number): { hub: string[]; browser: string[] } {
  const hub: string[] = [];
  const browser: string[] = [];
  if (figures.forwardP99Ms > criterion.maxForwardP99Ms) hub.push(`forwarding p99 ${round(figures.forwardP99Ms)} ms > ${criterion.maxForwardP99Ms}`);
  if (figures.hubLossPercent > criterion.maxHubLossPercent) hub.push(`loss at the hub ${round(figures.hubLossPercent, 2)}% > ${criterion.maxHubLossPercent}%`);
  if (figures.notConnected > 0) hub.push(`${figures.notConnected} participant(s) no longer connected at the hub`);
  if (figures.droppedPercent > criterion.maxDroppedPercent) browser.push(`receivers dropped ${round(figures.droppedPercent, 1)}% of frames`);
  if (figures.minDecodedToSent < criterion.minDecodedToSent) browser.push(`a receiver decoded ${round(figures.minDecodedToSent * 100)}% of the frames sent`);
  if (figures.sentFps < baselineSentFps * criterion.minSentFpsToBaseline)
    browser.push(`senders at ${round(figures.sentFps, 1)} fps (one session: ${round(baselineSentFps, 1)})`);
  return { hub, browser };
}

async function measureCapacity(sfu: ReturnType<typeof createWeriftSfu>, media: BenchBrowser) {
  const rows: string[] = [];
  const sessions: BenchSession[] = [];
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  let baselineSentFps = 0;
  let lastGood = 0;
  let lastHubGood = 0;
  let stoppedBy = `the cap of ${maxSessions} sessions`;
  let lastHubGoodFigures: WindowFigures | undefined;
  try {
    for (let count = 1; count <= maxSessions; count += 1) {
      if (Date.now() - startedAt > budgetMs) {
        stoppedBy = `the time budget (${budgetMs / 1000} s) before step ${count}`;
        break;
      }
      try {
        sessions.push(await openSession(sfu, media, `cap${count}`, 3, onError));
      } catch (error) {
        stoppedBy = `step ${count}, whose participants did not connect: ${error instanceof Error ? error.message : String(error)}`;
        rows.push(`| ${count} | ${count * 3} | ${stoppedBy} |`);
        break;
      }
      await sleep(settleMs);
      loopDelay.reset();
      loopDelay.enable();
      const figures = await measureWindow(sessions);
      loopDelay.disable();
      if (count === 1) baselineSentFps = figures.sentFps;
      const { hub, browser } = judgeStep(figures, baselineSentFps);
      const verdict = hub.length + browser.length === 0 ? 'good' : [...hub.map((r) => `hub: ${r}`), ...browser.map((r) => `browser: ${r}`)].join('; ');
      rows.push(
        `| ${count} | ${count * 3} | ${cpuCells(figures)} | ${round(figures.machineBusyPercent)} | ${round(figures.hubInMbps, 1)} / ${round(figures.hubOutMbps, 1)} | ${round(loopDelay.percentile(99) / 1e6)} / ${round(loopDelay.max / 1e6)} | ${round(figures.forwardP99Ms)} | ${round(figures.hubLossPercent, 2)} | ${round(figures.sentFps, 1)} / ${round(figures.minSentFps, 1)} | ${round(figures.decodedFps, 1)} / ${round(figures.minDecodedFps, 1)} | ${round(figures.droppedPercent, 1)} | ${figures.senderLimits.join(', ') || 'none'} | ${verdict} |`,
      );
      console.log(`  ${count} sessions: ${verdict} (${round((Date.now() - startedAt) / 1000)} s)`);
      // The browser falling behind ends the end-to-end count; the steps go on while the hub keeps up.
      if (browser.length === 0 && hub.length === 0 && lastGood === count - 1) lastGood = count;
      if (hub.length > 0) {
        // A hub far from a full core whose event loop still waits is waiting for a core, not working.
        const starved = figures.hubCpuPercent < 70 && figures.machineBusyPercent > cores * 95;
        stoppedBy = starved
          ? `the hub, starved of CPU (it used ${round(figures.hubCpuPercent)}% of a core while the machine was ${round(figures.machineBusyPercent)}% busy): the machine's limit, not the hub's`
          : `the hub (it used ${round(figures.hubCpuPercent)}% of a core)`;
        break;
      }
      lastHubGood = count;
      lastHubGoodFigures = figures;
    }
  } finally {
    await Promise.all(sessions.map((session) => session.close()));
  }
  return { rows, lastGood, lastHubGood, stoppedBy, lastHubGoodFigures };
}

function printTable(title: string, headers: string[], rows: string[]): void {
  console.log(`\n${title}:\n\n| ${headers.join(' | ')} |\n|${headers.map(() => '---|').join('')}\n${rows.join('\n')}`);
}

async function main(): Promise<void> {
  const cpus = os.cpus();
  console.log(`Open RON media hub benchmark: ${cores} x ${cpus[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.version}, ${new Date().toISOString()}`);
  console.log(
    `Load average before: ${os
      .loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')}${gc ? '' : '; no --expose-gc, so RSS figures include garbage'}`,
  );
  const media = await launchBenchBrowser(browserNice);
  const sfu = createWeriftSfu({ iceServers: [], iceAdditionalHostAddresses: ['127.0.0.1'], onError });
  try {
    console.log(`Chromium ${media.browser.version()} at nice ${browserNice}; window ${windowMs / 1000} s after ${settleMs / 1000} s settling.`);
    const { joinRows, costRows, recordRows } = await measureSizes(sfu, media);
    const capacity = await measureCapacity(sfu, media);
    const cpu = ['hub CPU %', 'Chromium CPU %', 'other CPU %'];
    console.log(
      `\nCPU in % of one core (${cores} cores = ${cores * 100}%). Load average after: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    printTable(
      'Join to first frames shown (ms, p50 / max over newcomers)',
      ['participants', 'joins', 'newcomer sees first other', 'newcomer sees all others', 'others see newcomer'],
      joinRows,
    );
    printTable(
      'Forwarding, steady window',
      [
        'participants',
        'video streams forwarded',
        ...cpu,
        'hub CPU % per participant',
        'hub memory growth MB (RSS / heap + buffers)',
        'per participant MB',
        'hub in / out Mbit/s',
        'forwarding p99 ms',
        'sent / decoded fps',
      ],
      costRows,
    );
    printTable(
      'With the recorder on (4 s segments)',
      [
        'participants',
        ...cpu,
        'extra hub CPU % per recorded participant',
        'extra memory MB per recorded participant (RSS / heap + buffers)',
        'forwarding p99 ms',
        'segments',
        'MB reported',
        'stop() took s',
      ],
      recordRows,
    );
    printTable(
      'Concurrent 3-person sessions',
      [
        'sessions',
        'participants',
        ...cpu,
        'machine busy %',
        'hub in / out Mbit/s',
        'hub event-loop delay p99 / max ms',
        'forwarding p99 ms',
        'hub loss %',
        'sent fps mean / min',
        'decoded fps mean / min',
        'dropped %',
        'sender limited by',
        'verdict',
      ],
      capacity.rows,
    );
    const perSession = capacity.lastHubGoodFigures ? capacity.lastHubGoodFigures.hubCpuPercent / capacity.lastHubGood : NaN;
    console.log(`\nLast step good end to end (hub and browser): ${capacity.lastGood} session(s).`);
    console.log(`Last step the hub kept within its criterion: ${capacity.lastHubGood} session(s); the steps stopped at ${capacity.stoppedBy}.`);
    console.log(checkSegments());
    console.log(
      `Hub CPU per 3-person session at that step: ${round(perSession, 1)}% of a core (one core, the hub's event loop, would be full at about ${round(100 / perSession)} sessions: an extrapolation, not a measurement).`,
    );
    if (errors.length > 0) console.log(`\n${errors.length} error(s) during the run; first: ${String(errors[0])}`);
    console.log(`\nTotal ${round((Date.now() - startedAt) / 1000)} s.`);
  } finally {
    await sfu.close();
    await media.close();
  }
}

main().then(
  () => process.exit(errors.length > 0 ? 1 : 0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
