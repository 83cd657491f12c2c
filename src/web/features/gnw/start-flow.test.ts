import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { GnwJob } from '#shared/gnw.ts';
import { browserStartDeps, startGnwJob, toCreateInput, type StartDeps } from './start-flow.ts';

const jobId = '6f1f6c2e-3b7a-4f5e-9a0b-1c2d3e4f5a6b';
const otherJobId = '7a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';

function gnwJob(overrides: Partial<GnwJob> = {}): GnwJob {
  return {
    jobId,
    title: 'Notarize Now',
    lane: 'instant',
    status: 'setup',
    step: 'documents',
    act: 'acknowledgment',
    signerState: null,
    timeZone: 'America/Chicago',
    signerCount: 1,
    otherSigners: [],
    witnessesRequested: 0,
    documentCount: 0,
    jobStatus: 'draft',
    estimate: null,
    payment: null,
    search: null,
    notaryName: null,
    matchedAt: null,
    booking: null,
    nextStep: 'Add your documents.',
    cancelFeeCents: 0,
    ...overrides,
  };
}

/** A stand-in for the server: answers fetch by method and path, and records what was asked. */
function stubServer(answers: Record<string, { status: number; body: unknown }>) {
  const calls: Array<{ method: string; path: string; body: unknown }> = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      const path = new URL(url, 'http://app.test').pathname;
      const method = init.method ?? 'GET';
      calls.push({ method, path, body: init.body ? JSON.parse(String(init.body)) : null });
      const answer = answers[`${method} ${path}`] ?? { status: 404, body: { error: 'not_found', message: 'Not found.' } };
      return new Response(JSON.stringify(answer.body), { status: answer.status, headers: { 'content-type': 'application/json' } });
    }),
  );
  return calls;
}

function memoryStorage(): Storage {
  const items = new Map<string, string>();
  return {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (key) => items.get(key) ?? null,
    key: (index) => [...items.keys()][index] ?? null,
    removeItem: (key) => void items.delete(key),
    setItem: (key, value) => void items.set(key, value),
  };
}

const pdf = () => new File(['%PDF-1.7'], 'deed.pdf', { type: 'application/pdf' });

/** The browser's calls over the stubbed fetch; the seed, files and upload (XMLHttpRequest) recorded in memory. */
function depsWith(files: File[], seed: ReturnType<StartDeps['readSeed']> = { lane: 'scheduled', form: { act: 'jurat' }, createdAt: Date.now() }) {
  const uploads: Array<{ jobId: string; names: string[] }> = [];
  let isCleared = false;
  const deps: StartDeps = {
    getActiveJob: browserStartDeps.getActiveJob,
    createJob: browserStartDeps.createJob,
    readSeed: () => seed,
    readFiles: async () => files,
    uploadFiles: async (id, chosen, onProgress) => {
      uploads.push({ jobId: id, names: chosen.map((file) => file.name) });
      onProgress(1);
    },
    clearSeed: () => {
      isCleared = true;
    },
  };
  return { deps, uploads, isCleared: () => isCleared };
}

beforeEach(() => {
  vi.stubGlobal('sessionStorage', memoryStorage());
  vi.stubGlobal('localStorage', memoryStorage());
  // The app's client asks the page's port whether it may fall back to a local server (it may not on 3000).
  vi.stubGlobal('window', { location: { port: '3000' } });
});
afterEach(() => vi.unstubAllGlobals());

describe('startGnwJob', () => {
  it('creates the job from the seed’s lane and act, uploads the kept files to it, then spends the seed', async () => {
    const calls = stubServer({
      'GET /api/gnw/active': { status: 200, body: { job: null } },
      'POST /api/gnw/jobs': { status: 200, body: gnwJob({ lane: 'scheduled', act: 'jurat' }) },
    });
    const { deps, uploads, isCleared } = depsWith([pdf()]);
    const phases: string[] = [];
    const result = await startGnwJob(deps, { onPhase: (phase) => phases.push(phase) });
    expect(result).toEqual({ jobId, uploaded: 1, keptFiles: 0 });
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({ lane: 'scheduled', act: 'jurat' });
    expect(uploads).toEqual([{ jobId, names: ['deed.pdf'] }]);
    expect(phases).toEqual(['checking', 'creating', 'uploading']);
    expect(isCleared()).toBe(true);
  });

  it('resumes the active job instead of creating another', async () => {
    const calls = stubServer({ 'GET /api/gnw/active': { status: 200, body: { job: gnwJob({ status: 'searching', step: 'notary' }) } } });
    const { deps, uploads } = depsWith([]);
    expect(await startGnwJob(deps)).toEqual({ jobId, uploaded: 0, keptFiles: 0 });
    expect(calls.map((call) => `${call.method} ${call.path}`)).toEqual(['GET /api/gnw/active']);
    expect(uploads).toEqual([]);
  });

  it('goes to the job a 409 gnw_active_job names (started elsewhere a moment ago), adding the files while it is in setup', async () => {
    let activeAnswers = 0;
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init: RequestInit) => {
        const path = new URL(url, 'http://app.test').pathname;
        if (path === '/api/gnw/active') {
          activeAnswers += 1;
          const job = activeAnswers === 1 ? null : gnwJob({ jobId: otherJobId });
          return new Response(JSON.stringify({ job }), { status: 200 });
        }
        expect(init.method).toBe('POST');
        const body = { error: 'gnw_active_job', message: 'You already have a notarization under way.', detail: { jobId: otherJobId } };
        return new Response(JSON.stringify(body), { status: 409 });
      }),
    );
    const { deps, uploads } = depsWith([pdf()]);
    expect(await startGnwJob(deps)).toEqual({ jobId: otherJobId, uploaded: 1, keptFiles: 0 });
    expect(uploads).toEqual([{ jobId: otherJobId, names: ['deed.pdf'] }]);
  });

  it('keeps the files for a later job when the active one is past setup, and never adds them to it', async () => {
    stubServer({ 'GET /api/gnw/active': { status: 200, body: { job: gnwJob({ status: 'matched', step: 'session' }) } } });
    const { deps, uploads, isCleared } = depsWith([pdf()]);
    expect(await startGnwJob(deps)).toEqual({ jobId, uploaded: 0, keptFiles: 1 });
    expect(uploads).toEqual([]);
    expect(isCleared()).toBe(false);
  });

  it('passes a refusal on as the server’s sentence, and keeps the seed for a retry', async () => {
    stubServer({
      'GET /api/gnw/active': { status: 200, body: { job: null } },
      'POST /api/gnw/jobs': { status: 503, body: { error: 'payment_not_configured', message: 'Payment is not configured on this platform.' } },
    });
    const { deps, isCleared } = depsWith([pdf()]);
    await expect(startGnwJob(deps)).rejects.toMatchObject({ status: 503, message: 'Payment is not configured on this platform.' });
    expect(isCleared()).toBe(false);
  });
});

describe('toCreateInput', () => {
  it('takes only a lane and an act the server knows, and the instant lane without a seed', () => {
    expect(toCreateInput(null)).toEqual({ lane: 'instant' });
    expect(toCreateInput({ lane: 'teleport', form: { act: 'blessing' }, createdAt: 0 })).toEqual({ lane: 'instant' });
    expect(toCreateInput({ lane: 'instant', form: { act: 'copy_certification', title: '  Lease  ' }, createdAt: 0 })).toEqual({
      lane: 'instant',
      act: 'copy_certification',
      title: 'Lease',
    });
  });
});
