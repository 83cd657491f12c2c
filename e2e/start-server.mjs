// Starts the built app for the browser journeys on a fresh embedded database and records the
// one-time administrator link it prints, so a journey can claim it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const port = process.env.E2E_PORT ?? '3210';
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-e2e-'));
const stateFile = path.join(os.tmpdir(), `ron-e2e-${port}.json`);
fs.rmSync(stateFile, { force: true });

const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
  env: {
    ...process.env,
    PORT: port,
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://localhost:${port}`,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'test',
    REGISTRATIONS_PER_ADDRESS_PER_HOUR: '1000',
    DATABASE_URL: '',
    REDIS_URL: '',
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});

let output = '';
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  output += chunk.toString();
  const match = output.match(/https?:\/\/\S+\/claim\/[A-Za-z0-9_-]+/);
  if (match && !fs.existsSync(stateFile)) fs.writeFileSync(stateFile, JSON.stringify({ bootstrapUrl: match[0], dataDir }));
});

const stop = () => {
  child.kill('SIGTERM');
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(stateFile, { force: true });
};
process.on('SIGTERM', () => {
  stop();
  process.exit(0);
});
process.on('SIGINT', () => {
  stop();
  process.exit(0);
});
child.on('exit', (code) => process.exit(code ?? 1));
