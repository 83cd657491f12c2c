import { defineConfig } from '@playwright/test';
import base from '../playwright.config.ts';

const root = new URL('..', import.meta.url).pathname;

/**
 * `npm run screenshots`: the main screens as they are now, and each step of the notarial act
 * (notarial-act.spec.ts), written to docs/screenshots/ (not part of `npm test`). Same server and browser as the journeys; only the capture file runs. Paths in a
 * config resolve from its folder, so the server command and outputs are pointed at the project root.
 */
// The act journey writes each of its steps (docs/screenshots/act-*.png) when this is set.
process.env.JOURNEY_SCREENSHOTS = '1';

export default defineConfig({
  ...base,
  testDir: '.',
  testMatch: ['screenshots.capture.ts', 'notarial-act.spec.ts'],
  outputDir: `${root}test-results/screenshots`,
  reporter: 'list',
  timeout: 120_000,
  use: { ...base.use, trace: 'off' },
  webServer: base.webServer && !Array.isArray(base.webServer) ? { ...base.webServer, cwd: root } : base.webServer,
});
