import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { VideoProvider } from '#server/providers/video/video-provider.ts';
import { createWeriftSfu } from '#server/providers/video/werift-sfu.ts';
import { createTestApp, type SharedTestPieces, type TestApp } from './create-test-app.ts';
import { writeSignalPage } from './signal-client.ts';

export interface SignalApp {
  t: TestApp;
  hub: VideoProvider;
  baseUrl: string;
  dataDir: string;
  close(): Promise<void>;
}

/**
 * A listening test app with its own werift hub on loopback, serving the signaling page of
 * writeSignalPage from its own origin. SIGNAL_DEBUG=1 prints the app's warnings. `shared.databaseOf`
 * makes it a second instance of another test app's deployment (same database and secrets key).
 */
export async function startSignalApp(prefix: string, shared: Pick<SharedTestPieces, 'databaseOf'> = {}): Promise<SignalApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const hub = createWeriftSfu({ iceServers: [], iceAdditionalHostAddresses: ['127.0.0.1'], keyframeIntervalMs: 500 });
  writeSignalPage(path.join(dataDir, 'web'));
  const isDebug = Boolean(process.env.SIGNAL_DEBUG);
  const t = await createTestApp(
    { DATA_DIR: dataDir, WEB_DIST_DIR: path.join(dataDir, 'web'), LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000', ...(isDebug ? { LOG_LEVEL: 'warn' } : {}) },
    { ...shared, video: hub, ...(isDebug ? { logStream: { write: (line: string) => console.log(line.slice(0, 1500)) } } : {}) },
  );
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  return {
    t,
    hub,
    dataDir,
    baseUrl: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`,
    async close() {
      await t.close();
      await hub.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
