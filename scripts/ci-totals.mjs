// Adds up the JSON reports of Vitest and Playwright into one line: "tests: N passed, N failed".
import fs from 'node:fs';
import path from 'node:path';

const directory = process.argv[2] ?? 'ci-reports';
let passed = 0;
let failed = 0;
const expected = ['unit.json', 'e2e.json', 'server-postgres.json'];
for (const name of expected) {
  const file = path.join(directory, name);
  if (!fs.existsSync(file)) {
    console.log(`${name}: missing (that step did not run to the end)`);
    failed += 1;
    continue;
  }
  const report = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (report.stats && typeof report.stats.expected === 'number') {
    passed += report.stats.expected + (report.stats.flaky ?? 0);
    failed += report.stats.unexpected;
    console.log(`${name}: ${report.stats.expected} passed, ${report.stats.unexpected} failed, ${report.stats.skipped} skipped`);
  } else {
    const fileErrors = report.success === false && report.numFailedTests === 0 ? 1 : 0;
    passed += report.numPassedTests ?? 0;
    failed += (report.numFailedTests ?? 0) + fileErrors;
    console.log(`${name}: ${report.numPassedTests} passed, ${report.numFailedTests} failed${fileErrors ? ', a test file failed to run' : ''}`);
  }
}
console.log(`tests: ${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;
