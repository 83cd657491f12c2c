import { defineConfig } from 'vitest/config';

export default defineConfig({
  define: { __BUILD_ID__: JSON.stringify('test-build') },
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/restore-globals.ts'],
    maxWorkers: 2,
    // Test files share their worker's module cache instead of importing the server afresh each:
    // importing took a third of the suite's time. Every file builds its own app and database, and the
    // few that fake timers or globals put them back (unstubGlobals puts globals back regardless).
    isolate: false,
    unstubGlobals: true,
    reporters: process.env.CI ? ['default', ['json', { outputFile: process.env.VITEST_JSON ?? 'ci-reports/unit.json' }]] : ['default'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
