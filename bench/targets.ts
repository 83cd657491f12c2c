/**
 * The targets of a benchmark, checked in one place: each benchmark measures, then hands
 * its figures here. The table is printed; with BENCH_STRICT=1 a missed target makes the process exit
 * non-zero (through process.exitCode, so the benchmark still cleans up). `npm run bench:all` runs
 * every benchmark and sums up.
 */
export interface Target {
  /** What is measured, as a person reads it: "GET /api/jobs?page=1, PostgreSQL, req/s". */
  name: string;
  measured: number;
  /** 'min': measured must be at least the limit; 'max': at most. */
  kind: 'min' | 'max';
  limit: number;
  unit: string;
}

export const isStrict = process.env.BENCH_STRICT === '1';

export function isMet(target: Target): boolean {
  return Number.isFinite(target.measured) && (target.kind === 'min' ? target.measured >= target.limit : target.measured <= target.limit);
}

const format = (value: number) => (Number.isFinite(value) ? (Math.abs(value) >= 100 ? value.toFixed(0) : value.toFixed(2)) : String(value));

/** Prints the targets as a Markdown table and says whether all were met; sets process.exitCode under BENCH_STRICT=1. */
export function reportTargets(benchmark: string, targets: Target[]): boolean {
  if (targets.length === 0) {
    console.log(`\n${benchmark}: no target applies to what this run measured.`);
    return true;
  }
  console.log(`\nTargets of ${benchmark}:\n`);
  console.log('| target | measured | limit | met |');
  console.log('|---|---|---|---|');
  for (const target of targets) {
    console.log(
      `| ${target.name} | ${format(target.measured)} ${target.unit} | ${target.kind === 'min' ? '≥' : '≤'} ${format(target.limit)} ${target.unit} | ${isMet(target) ? 'yes' : 'NO'} |`,
    );
  }
  const missed = targets.filter((target) => !isMet(target));
  if (missed.length === 0) {
    console.log(`\n${benchmark}: all ${targets.length} targets met.`);
    return true;
  }
  console.log(
    `\n${benchmark}: ${missed.length} of ${targets.length} targets missed${isStrict ? ' (BENCH_STRICT=1: failing)' : ' (set BENCH_STRICT=1 to fail the run)'}.`,
  );
  if (isStrict) process.exitCode = 1;
  return false;
}
