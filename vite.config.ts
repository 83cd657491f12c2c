import { execSync } from 'node:child_process';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

function readBuildId(): string {
  try {
    return execSync('git rev-parse --short HEAD', { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim() + '-' + Date.now().toString(36);
  } catch {
    return Date.now().toString(36);
  }
}

export default defineConfig({
  root: 'src/web',
  publicDir: false,
  plugins: [react()],
  define: { __BUILD_ID__: JSON.stringify(process.env.BUILD_ID ?? readBuildId()) },
  build: { outDir: '../../dist/web', emptyOutDir: true, sourcemap: true, reportCompressedSize: false },
  server: {
    port: 5173,
    proxy: { '/api': { target: 'http://127.0.0.1:3000', ws: true } },
  },
});
