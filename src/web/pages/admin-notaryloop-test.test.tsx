import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { renderToStaticMarkup } from 'react-dom/server';
import { MemoryRouter } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { SessionUser } from '#shared/auth.ts';
import type { GnwLoop } from '#shared/gnw.ts';
import type { Role } from '#shared/roles.ts';
import { gnwLoopQueryOptions } from '#web/api/gnw.ts';
import { authKeys } from '#web/features/auth/api/auth-queries.ts';
import { describeHowLongAgo, describeLastOffered } from '#web/features/gnw/loop-words.ts';
import { NotaryLoopTable } from '#web/features/gnw/notary-loop.tsx';
import AdminNotaryLoopTestPage from './admin-notaryloop-test.tsx';

const now = Date.parse('2026-12-01T15:00:00.000Z');

function candidate(overrides: Partial<GnwLoop['candidates'][number]>): GnwLoop['candidates'][number] {
  return {
    notaryId: '11111111-1111-4111-8111-111111111111',
    name: 'Nora Notary',
    commissionState: 'TX',
    online: true,
    eligible: true,
    acceptsTestOffers: true,
    order: 1,
    reason: 'Online and commissioned in Texas; longest without an offer.',
    lastOfferedAt: null,
    ...overrides,
  };
}

const loop: GnwLoop = {
  searching: 2,
  openOffers: 1,
  candidates: [
    candidate({
      notaryId: '33333333-3333-4333-8333-333333333333',
      name: 'Olive Offline',
      online: false,
      eligible: false,
      order: null,
      reason: 'Offline: her last heartbeat was over 90 seconds ago.',
    }),
    candidate({
      notaryId: '22222222-2222-4222-8222-222222222222',
      name: 'Ned Next',
      order: 2,
      acceptsTestOffers: false,
      reason: 'Online; offered 3 minutes ago.',
      lastOfferedAt: new Date(now - 3 * 60_000).toISOString(),
    }),
    candidate({}),
  ],
};

function user(roles: Role[]): SessionUser {
  return {
    id: 'u-1',
    name: 'Ada Admin',
    fullName: 'Ada Admin',
    email: 'ada@example.test',
    roles,
    role: roles[0]!,
    status: 'active',
    pendingApproval: null,
    emailVerified: true,
  };
}

/** A stand-in for the server: answers fetch by method and path, and records what was asked. */
function stubServer(answers: Record<string, { status: number; body: unknown }>) {
  const calls: string[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      const parsed = new URL(url, 'http://app.test');
      const key = `${init.method ?? 'GET'} ${parsed.pathname}`;
      calls.push(`${key}${parsed.search}`);
      const answer = answers[key] ?? { status: 404, body: { error: 'not_found', message: 'Not found.' } };
      return new Response(JSON.stringify(answer.body), { status: answer.status, headers: { 'content-type': 'application/json' } });
    }),
  );
  return calls;
}

/** The page as the signed-in person sees it, with the loop read first through the stubbed server. */
async function renderPage(roles: Role[], answer: GnwLoop) {
  const signedIn = user(roles);
  vi.stubGlobal('sessionStorage', { getItem: (key: string) => (key === 'user' ? JSON.stringify(signedIn) : null) });
  const calls = stubServer({ 'GET /api/gnw/loop': { status: 200, body: answer } });
  const queryClient = new QueryClient();
  queryClient.setQueryData(authKeys.me(), { user: signedIn });
  if (roles.includes('admin')) await queryClient.fetchQuery(gnwLoopQueryOptions(null, 'acknowledgment'));
  const html = renderToStaticMarkup(
    <QueryClientProvider client={queryClient}>
      <MemoryRouter initialEntries={['/admin/notaryloop-test']}>
        <AdminNotaryLoopTestPage />
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return { html, calls };
}

const rowsOf = (html: string) =>
  [...html.matchAll(/<tr>(.*?)<\/tr>/g)].slice(1).map((row) => [...row[1]!.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((cell) => cell[1]));

beforeEach(() => {
  vi.stubGlobal('localStorage', { getItem: () => null });
  vi.stubGlobal('window', { location: { port: '3000' } });
});

describe('the notary loop test page', () => {
  it('shows an administrator the candidates next in line first, with the counts and a test offer only for those who opted in', async () => {
    const { html, calls } = await renderPage(['admin'], loop);
    expect(calls).toEqual(['GET /api/gnw/loop?act=acknowledgment']);
    expect(html).toContain('<h1>Notary loop test</h1>');
    expect(html).toContain('2 requests searching for a notary. 1 offer ringing now.');
    const rows = rowsOf(html);
    expect(rows.map((row) => row[0])).toEqual(['1', '2', 'Not in line']);
    expect(rows[0]).toEqual([
      '1',
      'Nora Notary',
      'Texas',
      'Online',
      'Yes',
      'Accepts',
      'Never offered',
      'Online and commissioned in Texas; longest without an offer.',
      expect.stringContaining('Send a test offer<span class="visually-hidden"> to Nora Notary</span>'),
    ]);
    // Ned is next but did not opt in; Olive is offline and out of line: neither can be sent a test.
    expect(rows[1]?.slice(1, 6)).toEqual(['Ned Next', 'Texas', 'Online', 'Yes', 'Not accepted']);
    expect(rows[1]?.[8]).toBe('');
    expect(rows[2]?.slice(1, 5)).toEqual(['Olive Offline', 'Texas', 'Offline', 'No']);
    expect(rows[2]?.[7]).toBe('Offline: her last heartbeat was over 90 seconds ago.');
    expect(rows[2]?.[8]).toBe('');
    expect(html.match(/Send a test offer</g)).toHaveLength(1);
    // The administrators' sidebar links to the page.
    expect(html).toContain('href="/admin/notaryloop-test"');
  });

  it('says when there are no approved notaries yet, and when nobody is eligible', async () => {
    const { html } = await renderPage(['admin'], { searching: 0, openOffers: 0, candidates: [] });
    expect(html).toContain('No request is searching for a notary. No offer is ringing.');
    expect(html).toContain('No approved notaries yet.');
    expect(html).not.toContain('<table');
    const nobody = renderToStaticMarkup(
      <NotaryLoopTable loop={{ ...loop, candidates: [loop.candidates[0]!] }} now={now} sendingId={null} onSend={() => undefined} timeZone="America/Chicago" />,
    );
    expect(nobody).toContain('No notary is eligible for this state and act right now');
  });

  it('refuses everyone but administrators, as the other admin pages do', async () => {
    const { html, calls } = await renderPage(['notary'], loop);
    expect(html).toContain('role="alert">Only administrators can test the notary loop.</p>');
    expect(html).not.toContain('<table');
    expect(calls).toEqual([]);
  });

  it('writes when a notary was last offered as a date and time and how long ago', () => {
    expect(describeLastOffered(new Date(now - 3 * 60_000).toISOString(), now, 'America/Chicago')).toBe('Dec 1, 2026, 8:57 AM CST (3 minutes ago)');
    expect(describeHowLongAgo(new Date(now - 26 * 3_600_000).toISOString(), now)).toBe('yesterday');
    expect(describeHowLongAgo(new Date(now - 4_000).toISOString(), now)).toBe('just now');
    expect(describeLastOffered(null, now)).toBe('Never offered');
  });
});
