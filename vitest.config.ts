import { defineConfig } from 'vitest/config';

export default defineConfig({
  define: { __BUILD_ID__: JSON.stringify('test-build') },
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    maxWorkers: 2,
    reporters: process.env.CI ? ['default', ['json', { outputFile: process.env.VITEST_JSON ?? 'ci-reports/unit.json' }]] : ['default'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
