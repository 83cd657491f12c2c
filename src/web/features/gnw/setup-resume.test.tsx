import { renderToStaticMarkup } from 'react-dom/server';
import { MemoryRouter } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import SetupPage from '#web/pages/setup.tsx';
import { findSetupPath } from './setup-resume.ts';

const gnwJobId = '6f1f6c2e-3b7a-4f5e-9a0b-1c2d3e4f5a6b';
const titleJobId = '7a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';

/** The person's own Notarize Now job as GET /api/gnw/jobs/{id} answers it: paused at the payment step. */
const gnwJob = {
  jobId: gnwJobId,
  title: 'Notarize Now',
  lane: 'instant',
  status: 'setup',
  step: 'payment',
  act: 'acknowledgment',
  signerState: 'TX',
  timeZone: 'America/Chicago',
  signerCount: 1,
  otherSigners: [],
  witnessesRequested: 0,
  documentCount: 1,
  jobStatus: 'draft',
  estimate: null,
  payment: null,
  search: null,
  notaryName: null,
  matchedAt: null,
  booking: null,
  nextStep: 'Finish setting up your request.',
  cancelFeeCents: 0,
};

/** A stand-in for the server: the person's Notarize Now job, a 404 for any other job id; records the paths asked. */
function stubServer() {
  const calls: string[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      const path = new URL(url, 'http://app.test').pathname;
      calls.push(`${init.method ?? 'GET'} ${path}`);
      const isOwn = path === `/api/gnw/jobs/${gnwJobId}`;
      const [status, body] = isOwn ? [200, gnwJob] : [404, { error: 'not_found', message: 'No Notarize Now request for that job, or it is not yours.' }];
      return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    }),
  );
  return calls;
}

beforeEach(() => {
  vi.stubGlobal('sessionStorage', { getItem: () => null });
  vi.stubGlobal('localStorage', { getItem: () => null });
  // The app's client asks the page's port whether it may fall back to a local server (it may not on 3000).
  vi.stubGlobal('window', { location: { port: '3000' } });
});

describe('/setup?jobId&start, the resume link', () => {
  it('leads the person’s own Notarize Now job back into the wizard, which opens where they left off', async () => {
    const calls = stubServer();
    expect(await findSetupPath(gnwJobId, 'session')).toBe(`/gnw/setup?jobId=${gnwJobId}`);
    expect(calls).toEqual([`GET /api/gnw/jobs/${gnwJobId}`]);
  });

  it('leads any other job to its home with the start value, as before', async () => {
    const calls = stubServer();
    expect(await findSetupPath(titleJobId, 'session')).toBe(`/jobs/detail?jobId=${titleJobId}&start=session`);
    expect(await findSetupPath(titleJobId, null)).toBe(`/jobs/detail?jobId=${titleJobId}`);
    expect(calls).toEqual([`GET /api/gnw/jobs/${titleJobId}`, `GET /api/gnw/jobs/${titleJobId}`]);
  });

  it('goes to the job’s home when the server cannot be reached', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        throw new TypeError('Failed to fetch');
      }),
    );
    expect(await findSetupPath(gnwJobId, null)).toBe(`/jobs/detail?jobId=${gnwJobId}`);
  });

  it('shows “Redirecting…” with the job and start values while it finds the way', () => {
    const html = renderToStaticMarkup(
      <MemoryRouter initialEntries={[`/setup?jobId=${gnwJobId}&start=session`]}>
        <SetupPage />
      </MemoryRouter>,
    );
    expect(html).toContain('Redirecting…');
    expect(html).toContain(`Job: ${gnwJobId} · Start: session`);
  });
});
