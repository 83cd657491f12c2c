// Adds up the JSON reports of Vitest and Playwright into one line: "tests: N passed, N failed".
import fs from 'node:fs';
import path from 'node:path';

const directory = process.argv[2] ?? 'ci-reports';
let passed = 0;
let failed = 0;
const failedIn = new Set();
const expected = ['unit.json', 'e2e.json', 'server-postgres.json'];
for (const name of expected) {
  const file = path.join(directory, name);
  if (!fs.existsSync(file)) {
    console.log(`${name}: missing (that step did not run to the end)`);
    failed += 1;
    failedIn.add(name);
    continue;
  }
  const report = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (report.stats && typeof report.stats.expected === 'number') {
    passed += report.stats.expected + (report.stats.flaky ?? 0);
    failed += report.stats.unexpected;
    if (report.stats.unexpected > 0) failedIn.add(name);
    console.log(
      `${name}: ${report.stats.expected} passed, ${report.stats.unexpected} failed, ${report.stats.skipped} skipped, ${Math.round((report.stats.duration ?? 0) / 1000)} s`,
    );
  } else {
    const fileErrors = report.success === false && report.numFailedTests === 0 ? 1 : 0;
    passed += report.numPassedTests ?? 0;
    failed += (report.numFailedTests ?? 0) + fileErrors;
    if ((report.numFailedTests ?? 0) + fileErrors > 0) failedIn.add(name);
    console.log(
      `${name}: ${report.numPassedTests} passed, ${report.numFailedTests} failed${fileErrors ? ', a test file failed to run' : ''}${describeVitestTime(report)}`,
    );
  }
}
// A step that exited non-zero with every test passed failed on something else (unhandled errors
// between tests, lint, typecheck): that counts as one failure, so the line never says 0 on a red run.
for (const file of fs.existsSync(directory) ? fs.readdirSync(directory).filter((name) => name.endsWith('.exit')) : []) {
  const reports = fs.readFileSync(path.join(directory, file), 'utf8').trim().split(/\s+/);
  if (reports.some((name) => failedIn.has(name))) continue;
  console.log(`${file.replace(/\.exit$/, '')}: exited non-zero with no failed test (unhandled errors, lint or typecheck; see its output)`);
  failed += 1;
}
// The failed tests by name with the first lines of their errors, last, where a reader of only the
// end of the output (a CI summary) still sees what failed and why.
for (const name of expected.filter((item) => failedIn.has(item) && fs.existsSync(path.join(directory, item)))) {
  for (const failure of listFailures(JSON.parse(fs.readFileSync(path.join(directory, name), 'utf8'))).slice(0, 10)) {
    console.log(`FAILED in ${name}: ${failure.title}`);
    for (const line of failure.message
      .split('\n')
      .filter((text) => text.trim())
      .slice(0, 6))
      console.log(`    ${line.slice(0, 300)}`);
  }
}
console.log(`tests: ${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;

/** The failed tests of a Playwright or Vitest JSON report: title and error text, colour codes removed. */
function listFailures(report) {
  const escape = String.fromCharCode(27);
  const plain = (text) =>
    String(text ?? '')
      .split(escape)
      .map((part, index) => (index === 0 ? part : part.replace(/^\[[0-9;]*m/, '')))
      .join('');
  const failures = [];
  if (report.stats && Array.isArray(report.suites)) {
    const visit = (suite, titles) => {
      for (const spec of suite.specs ?? []) {
        for (const test of spec.tests ?? []) {
          const result = (test.results ?? []).find((item) => item.status === 'failed' || item.status === 'timedOut');
          if (result) failures.push({ title: [...titles, spec.title].join(' › '), message: plain(result.error?.message ?? result.status) });
        }
      }
      for (const child of suite.suites ?? []) visit(child, [...titles, child.title]);
    };
    for (const suite of report.suites) visit(suite, [suite.title]);
  } else {
    for (const file of report.testResults ?? []) {
      for (const test of file.assertionResults ?? []) {
        if (test.status === 'failed')
          failures.push({ title: `${path.basename(file.name ?? '')} › ${test.fullName}`, message: plain((test.failureMessages ?? []).join('\n')) });
      }
    }
  }
  return failures;
}

/** ", N s" from a Vitest JSON report's start to its last file's end, or nothing when it does not say. */
function describeVitestTime(report) {
  const ends = (report.testResults ?? []).map((file) => file.endTime).filter((time) => typeof time === 'number');
  if (typeof report.startTime !== 'number' || ends.length === 0) return '';
  return `, ${Math.round((Math.max(...ends) - report.startTime) / 1000)} s`;
}
