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
    console.log(`${name}: ${report.stats.expected} passed, ${report.stats.unexpected} failed, ${report.stats.skipped} skipped`);
  } else {
    const fileErrors = report.success === false && report.numFailedTests === 0 ? 1 : 0;
    passed += report.numPassedTests ?? 0;
    failed += (report.numFailedTests ?? 0) + fileErrors;
    if ((report.numFailedTests ?? 0) + fileErrors > 0) failedIn.add(name);
    console.log(`${name}: ${report.numPassedTests} passed, ${report.numFailedTests} failed${fileErrors ? ', a test file failed to run' : ''}`);
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
console.log(`tests: ${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;
