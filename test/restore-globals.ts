import { afterEach, vi } from 'vitest';

// Every test's stubbed globals go back as it ends, not only before the next test: files share their
// worker (isolate: false), and a stub left by one file's last test would reach the next file's
// beforeAll (a stubbed `window` makes PGlite take itself for a browser). test/global-stubs.test.ts.
afterEach(() => {
  vi.unstubAllGlobals();
});
