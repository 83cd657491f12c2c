import { beforeAll, describe, expect, it, vi } from 'vitest';

// Test files share their worker (isolate: false), and `unstubGlobals` puts stubbed globals back only
// before the next test: a stub made by a file's last test used to stay through the next file's
// beforeAll. A `window` left stubbed so made PGlite think it ran in a browser, and eleven server test
// files failed to start in CI. The setup file (test/restore-globals.ts) puts them back after each test.
describe('a test that stubs a global', () => {
  it('stubs window as the web tests do', () => {
    vi.stubGlobal('window', { location: { port: '3000' } });
    expect(globalThis.window).toBeDefined();
  });
});

describe('the hooks that run after it', () => {
  let windowInBeforeAll: unknown = 'not read';
  beforeAll(() => {
    windowInBeforeAll = (globalThis as { window?: unknown }).window;
  });
  it('no longer see the stub, as the next file’s setup would not', () => {
    expect(windowInBeforeAll).toBeUndefined();
  });
});
