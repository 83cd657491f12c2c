import { execSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

function readBuildId(): string {
  try {
    return (
      execSync('git rev-parse --short HEAD', { stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim() +
      '-' +
      Date.now().toString(36)
    );
  } catch {
    return Date.now().toString(36);
  }
}

/** Writes .br and .gz beside every text asset so the server sends them precompressed. */
function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      const walk = (dir: string): string[] =>
        fs
          .readdirSync(dir, { withFileTypes: true })
          .flatMap((entry) => (entry.isDirectory() ? walk(path.join(dir, entry.name)) : [path.join(dir, entry.name)]));
      for (const file of walk(outDir)) {
        if (!/\.(js|css|html|svg|json)$/.test(file)) continue;
        const content = fs.readFileSync(file);
        fs.writeFileSync(`${file}.gz`, zlib.gzipSync(content, { level: 9 }));
        fs.writeFileSync(`${file}.br`, zlib.brotliCompressSync(content));
      }
    },
  };
}

export default defineConfig({
  root: 'src/web',
  publicDir: false,
  plugins: [react(), precompress()],
  define: { __BUILD_ID__: JSON.stringify(process.env.BUILD_ID ?? readBuildId()) },
  build: { outDir: '../../dist/web', emptyOutDir: true, sourcemap: true, reportCompressedSize: false },
  server: {
    port: 5173,
    proxy: { '/api': { target: 'http://127.0.0.1:3000', ws: true }, '/pki': { target: 'http://127.0.0.1:3000' } },
  },
});
