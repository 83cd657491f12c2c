/**
 * Benchmark of a document upload: POST /api/jobs/:id/documents of a ~20 MB PDF (20 pages,
 * each a 1 MB uncompressed image, as a scan is), in MB/s, beside fs.promises.copyFile of the same file
 * and beside the upload route's own steps run here in-process.
 *
 *   npx tsx bench/upload.bench.ts                                                            (PGlite)
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/upload.bench.ts   (PGlite and PostgreSQL)
 *
 * About 1 minute for PGlite, 1.5 with PostgreSQL, on 2 shared cores (load average 15-20); the hard limit is 30 s + 150 s per database.
 *
 * How: for each database a temporary DATA_DIR is created, the database migrated with the app's own
 * createDatabase().migrate() (with BENCH_DATABASE_URL, a loopback PostgreSQL server, a fresh database is
 * created on it and dropped at the end) and one title agent inserted (argon2 hash from the app's
 * hashPassword). The app runs as a child process (node --import tsx src/server/main.ts, LOG_LEVEL=warn,
 * local blob storage), the agent signs in (POST /api/auth/login, 200) and creates a job (POST /api/jobs,
 * 201). The PDF is then uploaded 1 + BENCH_UPLOAD_RUNS times over loopback, one at a time; the first is
 * a warm-up. The client is node:http writing a multipart body (a tag field, then the file) built before
 * the clock starts, so the figure is the server's, as for a browser whose encoding costs the server
 * nothing; on PGlite the same uploads are also sent with fetch + FormData, whose encoding in this
 * process (sharing the 2 cores with the server) is shown apart and is not a target. Each upload is a new
 * blob (a few bytes of the first image differ), and every answer is checked: 201, one document whose
 * sha256, sizeBytes and pageCount are the file's. Afterwards the last document is downloaded (200, the
 * same bytes) and DATA_DIR/tmp must be empty. The route's steps are then timed in-process on the same
 * file system, with the functions the route calls, beside the steps it took before it received into memory.
 * Children are stopped on exit, on error, on time-out and on Ctrl-C; temporary folders (and the
 * PostgreSQL database) are removed. The target: at least 150 MB/s per database (bench/targets.ts).
 *
 * Settings (environment): BENCH_UPLOAD_MB (20), BENCH_UPLOAD_RUNS (5), BENCH_DATABASE_URL,
 * BENCH_APP_NODE_ARGS (extra node flags for the app, e.g. "--cpu-prof --cpu-prof-dir=/tmp/profiles").
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { concatTransformationMatrix, drawObject, PDFDocument, popGraphicsState, pushGraphicsState, StandardFonts } from 'pdf-lib';
import { createDatabase } from '#server/db/client.ts';
import { users } from '#server/db/schema/index.ts';
import { checkPdf, checkPdfBytes } from '#server/features/documents/pdf-check-pool.ts';
import { hashPassword } from '#server/lib/crypto.ts';
import { createLocalStorage, receiveToMemory, receiveToTempFile, writeTempFile } from '#server/providers/storage/storage.ts';
import { children, cleanUp, cleanups, findFreePort, killChildrenNow, readNumber, stopChild, tailOf, timed } from './bench-kit.ts';
import { readProcessCpuMs } from './proc-cpu.ts';
import { reportTargets, type Target } from './targets.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const userEmail = 'uploader@bench.open-ron.test';
const startupTimeoutMs = 90_000;
const timeoutPerDatabaseMs = 150_000;
const loopbackHosts = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);
const megabyte = 1_000_000;
const targetMegabytesPerSecond = 150;
const markerText = 'OPEN-RON-BENCH-UPLOAD-MARKER-000';

interface Settings {
  uploadMegabytes: number;
  uploadRuns: number;
  databaseUrl: string | null;
}

interface Backend {
  kind: 'pglite' | 'postgres';
  label: string;
  dataDir: string;
  databaseUrl: string | null;
  serverVersion: string;
}

interface AppServer {
  name: string;
  baseUrl: string;
  child: ChildProcess;
  logPath: string;
  token: string;
}

interface UploadPdf {
  bytes: Buffer;
  markerOffset: number;
  pageCount: number;
}

interface UploadResult {
  backend: Backend;
  client: Client;
  ms: number[];
  serverCpuMs: number[];
}

interface StepRow {
  label: string;
  samplesMs: number[];
  note: string;
}

function readSettings(env: NodeJS.ProcessEnv): Settings {
  const databaseUrl = env.BENCH_DATABASE_URL ? env.BENCH_DATABASE_URL : null;
  if (databaseUrl) {
    const host = new URL(databaseUrl).hostname;
    if (!loopbackHosts.has(host)) throw new Error(`BENCH_DATABASE_URL must point at a loopback host (got "${host}").`);
  }
  return {
    uploadMegabytes: readNumber(env, 'BENCH_UPLOAD_MB', 20),
    uploadRuns: Math.round(readNumber(env, 'BENCH_UPLOAD_RUNS', 5)),
    databaseUrl,
  };
}

function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] ?? NaN) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

const loadAverage = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

const sha256Of = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

// ---------------------------------------------------------------------------------------------
// Child processes (the approach of bench/jobs.bench.ts)

async function startApp(backend: Backend, workDir: string, password: string): Promise<AppServer> {
  const port = await findFreePort();
  const name = `app-${backend.kind}`;
  const logPath = path.join(workDir, `${name}.log`);
  const fd = fs.openSync(logPath, 'w');
  const child = spawn(process.execPath, [...(process.env.BENCH_APP_NODE_ARGS?.split(' ').filter(Boolean) ?? []), '--import', 'tsx', 'src/server/main.ts'], {
    cwd: repoRoot,
    env: {
      ...process.env,
      DATA_DIR: backend.dataDir,
      DATABASE_URL: backend.databaseUrl ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: '',
      REDIS_URL: '',
      SMTP_URL: '',
      S3_BUCKET: '',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', fd, fd],
  });
  fs.closeSync(fd);
  children.add(child);
  child.once('exit', () => children.delete(child));
  const deadline = Date.now() + startupTimeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${name} exited during start-up (code ${child.exitCode ?? child.signalCode}):\n${tailOf(logPath)}`);
    if (fs.readFileSync(logPath, 'utf8').includes('Open RON is running at')) break;
    if (Date.now() > deadline) throw new Error(`${name} did not start within ${startupTimeoutMs / 1000} s:\n${tailOf(logPath)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const baseUrl = `http://127.0.0.1:${port}`;
  const response = await fetch(`${baseUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: userEmail, password }),
  });
  const signedIn = (await response.json()) as { sessionToken?: string | null };
  if (response.status !== 200 || !signedIn.sessionToken) throw new Error(`${name}: sign-in answered ${response.status}: ${JSON.stringify(signedIn)}`);
  return { name, baseUrl, child, logPath, token: signedIn.sessionToken };
}

// ---------------------------------------------------------------------------------------------
// Databases

/** A temp DATA_DIR, the database migrated (a fresh PostgreSQL database when asked) and the uploader inserted. */
async function prepareBackend(kind: Backend['kind'], workDir: string, settings: Settings, passwordHash: string): Promise<Backend> {
  const dataDir = path.join(workDir, `data-${kind}`);
  fs.mkdirSync(dataDir, { recursive: true });
  let databaseUrl: string | null = null;
  if (kind === 'postgres' && settings.databaseUrl) {
    const adminUrl = settings.databaseUrl;
    const name = `open_ron_bench_upload_${process.pid}_${Date.now()}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    cleanups.push(async () => {
      const dropper = new pg.Client({ connectionString: adminUrl });
      await dropper.connect();
      await dropper.query(`drop database if exists ${name} with (force)`);
      await dropper.end();
    });
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
  }
  const database = await createDatabase({ databaseUrl, dataDir: databaseUrl ? null : path.join(dataDir, 'db') });
  try {
    await database.migrate();
    await database.db.insert(users).values({ email: userEmail, name: 'Uma Uploader', roles: ['title_agent'], passwordHash, status: 'active' });
    const client = (database.db as unknown as { $client: { query(text: string): Promise<{ rows: unknown[] }> } }).$client;
    const [row] = (await client.query('select version() as version')).rows as Array<{ version: string }>;
    const serverVersion = (row?.version ?? 'unknown').split(' ').slice(0, 2).join(' ');
    return { kind, label: kind === 'pglite' ? 'PGlite' : 'PostgreSQL', dataDir, databaseUrl, serverVersion };
  } finally {
    await database.close();
  }
}

// ---------------------------------------------------------------------------------------------
// The PDF

/** A real PDF of `megabytes` MB: 20 letter pages, each a title and a full-page uncompressed RGB image (a scan). */
async function makeUploadPdf(megabytes: number): Promise<UploadPdf> {
  const pageCount = 20;
  const width = 1000;
  const height = Math.max(1, Math.round((megabytes * megabyte) / pageCount / (width * 3)));
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (let index = 0; index < pageCount; index += 1) {
    const pixels = randomBytes(width * height * 3);
    if (index === 0) pixels.write(markerText, 0, 'latin1');
    const image = pdf.context.register(
      pdf.context.stream(pixels, { Type: 'XObject', Subtype: 'Image', Width: width, Height: height, ColorSpace: 'DeviceRGB', BitsPerComponent: 8 }),
    );
    const page = pdf.addPage([612, 792]);
    const name = page.node.newXObject('Scan', image);
    page.pushOperators(pushGraphicsState(), concatTransformationMatrix(540, 0, 0, 540 * (height / width), 36, 100), drawObject(name), popGraphicsState());
    page.drawText(`Scanned closing package, page ${index + 1} of ${pageCount}`, { x: 36, y: 740, size: 14, font });
  }
  pdf.setTitle('Upload benchmark');
  const bytes = Buffer.from(await pdf.save());
  const markerOffset = bytes.indexOf(markerText, 0, 'latin1');
  if (markerOffset < 0) throw new Error('the upload PDF lost its marker');
  return { bytes, markerOffset, pageCount };
}

/** The same PDF with different pixels in its first image, so each upload is a new blob (storage skips a known hash). */
function variantOf(upload: UploadPdf, label: string): { bytes: Buffer; sha256: string } {
  const bytes = Buffer.from(upload.bytes);
  bytes.write(label.padEnd(markerText.length, '-').slice(0, markerText.length), upload.markerOffset, 'latin1');
  return { bytes, sha256: sha256Of(bytes) };
}

// ---------------------------------------------------------------------------------------------
// Measurements

/** The multipart body a browser sends for one file and the tag field, built before the clock starts. */
function multipartOf(bytes: Buffer, fileName: string): { body: Buffer; contentType: string } {
  const boundary = `----OpenRonBench${randomBytes(12).toString('hex')}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="tag"\r\n\r\nsigning\r\n`),
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: application/pdf\r\n\r\n`),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

/** POST with node:http, the whole body written at once (no client-side encoding inside the measured time). */
function postBody(url: string, headers: Record<string, string>, body: Buffer): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'POST', headers: { ...headers, 'content-length': String(body.length) } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

type Client = 'node:http' | 'fetch + FormData';

/** One warm-up and settings.uploadRuns timed uploads to a new job; every answer checked, then the stored bytes and DATA_DIR/tmp. */
async function measureUploads(app: AppServer, backend: Backend, upload: UploadPdf, settings: Settings, client: Client): Promise<UploadResult> {
  const headers = { authorization: `Bearer ${app.token}` };
  const created = await fetch(`${app.baseUrl}/api/jobs`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Upload benchmark', notarizationType: 'acknowledgment' }),
  });
  const job = (await created.json()) as { id?: string };
  if (created.status !== 201 || !job.id) throw new Error(`${app.name}: POST /api/jobs answered ${created.status}: ${JSON.stringify(job)}`);
  const url = `${app.baseUrl}/api/jobs/${job.id}/documents`;
  const ms: number[] = [];
  const serverCpuMs: number[] = [];
  let last: { id: string; bytes: Buffer } | null = null;
  for (let run = 0; run <= settings.uploadRuns; run += 1) {
    const variant = variantOf(upload, `${app.name}-${client}-${run}-${Date.now()}`);
    const fileName = `closing-package-${run}.pdf`;
    let send: () => Promise<{ status: number; text: string }>;
    if (client === 'node:http') {
      const { body, contentType } = multipartOf(variant.bytes, fileName);
      send = () => postBody(url, { ...headers, 'content-type': contentType }, body);
    } else {
      const form = new FormData();
      form.append('tag', 'signing');
      form.append('file', new Blob([new Uint8Array(variant.bytes)], { type: 'application/pdf' }), fileName);
      send = async () => {
        const response = await fetch(url, { method: 'POST', headers, body: form });
        return { status: response.status, text: await response.text() };
      };
    }
    const cpuBefore = readProcessCpuMs(app.child.pid);
    const { ms: elapsed, result } = await timed(send);
    const cpuAfter = readProcessCpuMs(app.child.pid);
    let items: Array<{ id: string; sha256: string; sizeBytes: number; pageCount: number }> | undefined;
    try {
      items = (JSON.parse(result.text) as { items?: typeof items }).items;
    } catch {
      items = undefined;
    }
    const stored = items?.[0];
    if (
      result.status !== 201 ||
      items?.length !== 1 ||
      stored?.sha256 !== variant.sha256 ||
      stored.sizeBytes !== variant.bytes.length ||
      stored.pageCount !== upload.pageCount
    ) {
      throw new Error(`${app.name}: upload ${run} (${client}) answered ${result.status}: ${result.text.slice(0, 300)}`);
    }
    last = { id: stored.id, bytes: variant.bytes };
    if (run === 0) continue; // warm-up
    ms.push(elapsed);
    if (cpuBefore !== null && cpuAfter !== null) serverCpuMs.push(cpuAfter - cpuBefore);
  }
  // what was stored is what was sent, and nothing was left behind in the temporary folder
  if (last) {
    const response = await fetch(`${app.baseUrl}/api/jobs/${job.id}/documents/${last.id}/file`, { headers });
    const body = Buffer.from(await response.arrayBuffer());
    if (response.status !== 200 || !body.equals(last.bytes))
      throw new Error(`${app.name}: the stored document answered ${response.status} with ${body.length} bytes that differ from the upload`);
  }
  const temporaryDirectory = path.join(backend.dataDir, 'tmp');
  const leftOver = fs.existsSync(temporaryDirectory) ? fs.readdirSync(temporaryDirectory) : [];
  if (leftOver.length > 0) throw new Error(`${app.name}: ${leftOver.length} temporary file(s) left in DATA_DIR/tmp: ${leftOver.join(', ')}`);
  return { backend, client, ms, serverCpuMs };
}

/**
 * fs.promises.copyFile of the same file, the upload route's steps here in-process (the functions
 * receiveDocument and addDocuments call, fed from a file stream), and for comparison the steps the
 * route took before it received into memory (stream to a temp file, read it back and parse, copy into storage).
 */
async function measureSteps(workDir: string, upload: UploadPdf, settings: Settings): Promise<StepRow[]> {
  const scratch = path.join(workDir, 'scratch');
  const temporary = path.join(scratch, 'tmp');
  fs.mkdirSync(scratch, { recursive: true });
  const source = path.join(scratch, 'source.pdf');
  fs.writeFileSync(source, upload.bytes);
  const maxBytes = 50 * 1024 * 1024;
  const row = (label: string, note: string): StepRow => ({ label, samplesMs: [], note });
  const copyRow = row('fs.promises.copyFile', 'kernel copy of the same file (page cache)');
  const receiveRow = row('step: receive + SHA-256', 'receiveToMemory: one pass, each chunk hashed and copied into one buffer (size hint as the route gives)');
  const parseRow = row('step: checkPdfBytes (pdf-lib parse)', 'one parse of the bytes in memory');
  const writeRow = row('step: write the temp file', 'writeTempFile: one write, 0600');
  const moveRow = row('step: storage moveFile (rename)', 'createLocalStorage().moveFile');
  const totalRow = row('steps together', 'the route minus HTTP, multipart and database');
  const previousRow = row('previous steps together', 'receiveToTempFile + checkPdf (read back, parse) + putFile (copy + rename)');
  const storage = createLocalStorage(path.join(scratch, 'blobs'));
  for (let run = 0; run <= settings.uploadRuns; run += 1) {
    const copyTarget = path.join(scratch, `copy-${run}.pdf`);
    const copy = await timed(() => fs.promises.copyFile(source, copyTarget));
    fs.rmSync(copyTarget);
    const variantPath = path.join(scratch, `variant-${run}.pdf`);
    const variant = variantOf(upload, `steps-${run}-${Date.now()}`);
    fs.writeFileSync(variantPath, variant.bytes);
    const received = await timed(() => receiveToMemory(fs.createReadStream(variantPath), maxBytes, variant.bytes.length));
    if (received.result.sha256 !== variant.sha256) throw new Error('receiveToMemory hashed the file differently');
    const parsed = await timed(() => checkPdfBytes(received.result.bytes, 'bench.pdf'));
    if (parsed.result !== upload.pageCount) throw new Error(`checkPdfBytes counted ${parsed.result} pages`);
    const written = await timed(() => writeTempFile(temporary, received.result.bytes));
    const moved = await timed(() => storage.moveFile(written.result, received.result.sha256, 'application/pdf'));
    // the same file the way the route took it before
    const previousVariant = variantOf(upload, `previous-${run}-${Date.now()}`);
    fs.writeFileSync(variantPath, previousVariant.bytes);
    const previous = await timed(async () => {
      const file = await receiveToTempFile(fs.createReadStream(variantPath), temporary, maxBytes);
      const pageCount = await checkPdf(file.filePath, file.head, 'bench.pdf');
      await storage.putFile(file.filePath, file.sha256, 'application/pdf');
      await fs.promises.rm(file.filePath);
      return { pageCount, sha256: file.sha256 };
    });
    if (previous.result.pageCount !== upload.pageCount || previous.result.sha256 !== previousVariant.sha256)
      throw new Error('the previous steps read the file differently');
    fs.rmSync(variantPath);
    if (run === 0) continue; // warm-up
    copyRow.samplesMs.push(copy.ms);
    receiveRow.samplesMs.push(received.ms);
    parseRow.samplesMs.push(parsed.ms);
    writeRow.samplesMs.push(written.ms);
    moveRow.samplesMs.push(moved.ms);
    totalRow.samplesMs.push(received.ms + parsed.ms + written.ms + moved.ms);
    previousRow.samplesMs.push(previous.ms);
  }
  fs.rmSync(scratch, { recursive: true, force: true });
  return [copyRow, receiveRow, parseRow, writeRow, moveRow, totalRow, previousRow];
}

// ---------------------------------------------------------------------------------------------
// Output

function formatTable(header: string[], rows: string[][], rightAligned: Set<number>): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)));
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => (rightAligned.has(column) ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0))).join(' | ')} |`;
  const rule = `| ${widths.map((width, column) => (rightAligned.has(column) ? `${'-'.repeat(Math.max(1, width - 1))}:` : '-'.repeat(width))).join(' | ')} |`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

async function main(): Promise<void> {
  const settings = readSettings(process.env);
  const startedAt = performance.now();
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'open-ron-upload-bench-'));
  cleanups.push(async () => fs.rmSync(workDir, { recursive: true, force: true }));
  const loadAtStart = loadAverage();
  try {
    const cpus = os.cpus();
    console.log(`Open RON upload benchmark: ${cpus.length} x ${cpus[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.version}, ${new Date().toISOString()}`);
    console.log(`Load average at start: ${loadAtStart}.`);
    const password = randomBytes(12).toString('base64url');
    const passwordHash = await hashPassword(password);
    const kinds: Backend['kind'][] = ['pglite', ...(settings.databaseUrl ? (['postgres'] as const) : [])];
    const [backends, upload] = await Promise.all([
      Promise.all(kinds.map((kind) => prepareBackend(kind, workDir, settings, passwordHash))),
      makeUploadPdf(settings.uploadMegabytes),
    ]);
    const sizeMb = upload.bytes.length / megabyte;

    const results: UploadResult[] = [];
    for (const backend of backends) {
      const app = await startApp(backend, workDir, password);
      console.log(
        `Uploading the ${sizeMb.toFixed(1)} MB PDF (${upload.pageCount} pages) to the app on ${backend.label}, 1 warm-up + ${settings.uploadRuns} runs ...`,
      );
      results.push(await measureUploads(app, backend, upload, settings, 'node:http'));
      // the same through fetch + FormData once, to show what a Node client's own encoding adds (not a target)
      if (backend.kind === 'pglite') results.push(await measureUploads(app, backend, upload, settings, 'fetch + FormData'));
      await stopChild(app.child);
    }
    console.log("Timing the route's steps in-process ...");
    const steps = await measureSteps(workDir, upload, settings);
    const loadAtEnd = loadAverage();

    const copyMs = median(steps[0]?.samplesMs ?? []);
    const megabytesPerSecond = (ms: number) => sizeMb / (ms / 1000);
    const rows: string[][] = [
      ...results.map((result) => {
        const ms = median(result.ms);
        return [
          `POST /api/jobs/:id/documents (app, ${result.backend.label}, ${result.client})`,
          ms.toFixed(0),
          megabytesPerSecond(ms).toFixed(0),
          `${((copyMs / ms) * 100).toFixed(1)}%`,
          `multipart over loopback; server CPU ${median(result.serverCpuMs).toFixed(0)} ms/upload; runs ${result.ms.map((value) => value.toFixed(0)).join(', ')} ms`,
        ];
      }),
      ...steps.map((row) => {
        const ms = median(row.samplesMs);
        return [row.label, ms.toFixed(1), megabytesPerSecond(ms).toFixed(0), `${((copyMs / ms) * 100).toFixed(1)}%`, row.note];
      }),
    ];
    console.log(
      `\nUpload of a ${sizeMb.toFixed(1)} MB PDF (${upload.bytes.length} bytes, ${upload.pageCount} pages), median of ${settings.uploadRuns} after a warm-up (MB = 10^6 bytes):\n`,
    );
    console.log(formatTable(['Operation', 'median ms', 'MB/s', 'vs copyFile', 'notes'], rows, new Set([1, 2, 3])));
    console.log(
      `\nMachine: ${cpus.length} cores, Node ${process.version}, ${backends.map((backend) => `${backend.label} (${backend.serverVersion})`).join(' and ')}. ` +
        `Load average ${loadAtStart} at start, ${loadAtEnd} at end. Total run time ${((performance.now() - startedAt) / 1000).toFixed(0)} s.`,
    );

    const labels: Array<Backend['kind']> = ['pglite', 'postgres'];
    const targets: Target[] = labels.map((kind) => {
      const result = results.find((candidate) => candidate.backend.kind === kind && candidate.client === 'node:http');
      return {
        name: `POST /api/jobs/:id/documents, ${sizeMb.toFixed(0)} MB PDF, ${kind === 'pglite' ? 'PGlite' : 'PostgreSQL'}, MB/s${result ? '' : ' (not measured: set BENCH_DATABASE_URL)'}`,
        measured: result ? megabytesPerSecond(median(result.ms)) : NaN,
        kind: 'min',
        limit: targetMegabytesPerSecond,
        unit: 'MB/s',
      };
    });
    reportTargets('upload', targets);
  } finally {
    await cleanUp();
  }
}

/** Stops everything within 10 s, whatever state the run is in, then exits. */
function abort(code: number): void {
  killChildrenNow();
  const deadline = setTimeout(() => process.exit(code), 10_000);
  void cleanUp().finally(() => {
    clearTimeout(deadline);
    process.exit(code);
  });
}

process.on('exit', killChildrenNow);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => abort(130));
const timeoutMs = 30_000 + timeoutPerDatabaseMs * (process.env.BENCH_DATABASE_URL ? 2 : 1);
setTimeout(() => {
  console.error(`\nThe benchmark did not finish within ${timeoutMs / 1000} s; stopping.`);
  abort(2);
}, timeoutMs).unref();

main().then(
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    console.error(`\nBenchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    abort(1);
  },
);
