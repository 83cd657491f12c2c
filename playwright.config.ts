import { defineConfig } from '@playwright/test';

const port = Number(process.env.E2E_PORT ?? 3210);
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export default defineConfig({
  testDir: 'e2e',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  // How long an expectation waits for the state a person would see. The same run has taken 19 and
  // 44 minutes on the CI host (its load varies); 5 s, the default, left too little room for a step
  // that takes 1-2 s on a quiet machine. A state that never comes still fails, 5 s later.
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [['list'], ['json', { outputFile: 'ci-reports/e2e.json' }]] : 'list',
  use: {
    baseURL: `http://localhost:${port}`,
    launchOptions: {
      executablePath: chromiumPath,
      // Fake cameras and microphones, granted without a prompt, for the live-session journeys
      // (TOOLCHAIN.md). Three cameras: the second gives frames Chromium's encoder never sends (the
      // room must refuse it), the third is one to switch to.
      args: [
        '--no-sandbox',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-gpu',
        '--disable-quic',
        '--use-fake-device-for-media-stream=device-count=3',
        '--use-fake-ui-for-media-stream',
        '--autoplay-policy=no-user-gesture-required',
      ],
    },
    trace: 'retain-on-failure',
  },
  projects: [{ name: 'chromium', use: { browserName: 'chromium' } }],
  webServer: {
    command: `node e2e/start-server.mjs`,
    url: `http://localhost:${port}/api/system/health`,
    reuseExistingServer: false,
    timeout: 120_000,
    env: { PORT: String(port), E2E_PORT: String(port) },
    stdout: 'pipe',
  },
});
