import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { renderToStaticMarkup } from 'react-dom/server';
import { MemoryRouter } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { AdminUser } from '#shared/admin-users.ts';
import { adminUsersQueryOptions } from './api/admin-user-queries.ts';
import { AdminUsersDirectory } from './admin-users-directory.tsx';

/**
 * The administrators' Users directory as the browser first paints it: a page of accounts with the
 * pager under it, the search the address names, and its empty states; the server's answers read
 * through the app's own client over a stubbed fetch.
 */

function account(index: number, overrides: Partial<AdminUser> = {}): AdminUser {
  return {
    id: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
    name: `Person ${index}`,
    email: `person${index}@example.test`,
    roles: ['signer'],
    status: 'active',
    emailVerifiedAt: '2026-10-01T15:00:00.000Z',
    lastLoginAt: null,
    createdAt: '2026-10-01T15:00:00.000Z',
    hasPassword: true,
    companies: [],
    hasSignature: false,
    hasInitials: false,
    ...overrides,
  };
}

function stubServer(answers: Record<string, unknown>) {
  const calls: string[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      const parsed = new URL(url, 'http://app.test');
      const key = `${init.method ?? 'GET'} ${parsed.pathname}${parsed.search}`;
      calls.push(key);
      const body = answers[key];
      return body === undefined
        ? new Response(JSON.stringify({ error: 'not_found', message: 'Not found.' }), { status: 404, headers: { 'content-type': 'application/json' } })
        : new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
    }),
  );
  return calls;
}

/** The directory at an address, with the answer to the list call it makes there fetched first. */
async function renderDirectory(
  address: string,
  query: Parameters<typeof adminUsersQueryOptions>[0],
  answer: { items: AdminUser[]; total: number; page: number },
) {
  const options = adminUsersQueryOptions(query);
  const params = options.queryKey.at(-1) as string;
  const calls = stubServer({ [`GET /api/admin/users?${params}`]: { ...answer, pageSize: 20 } });
  const queryClient = new QueryClient();
  await queryClient.fetchQuery(options);
  const html = renderToStaticMarkup(
    <QueryClientProvider client={queryClient}>
      <MemoryRouter initialEntries={[address]}>
        <AdminUsersDirectory />
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return { html, calls };
}

const namesIn = (html: string) => [...html.matchAll(/<h3>([^<]+)<\/h3>/g)].map((match) => match[1]);
const pagerOf = (html: string) => /<nav class="actions pager" aria-label="Pages of accounts">(.*?)<\/nav>/.exec(html)?.[1] ?? null;

beforeEach(() => {
  vi.stubGlobal('sessionStorage', { getItem: () => null });
  vi.stubGlobal('localStorage', { getItem: () => null });
  // The app's client asks the page's port whether it may fall back to a local server (it may not on 3000).
  vi.stubGlobal('window', { location: { port: '3000' } });
});

describe('the Users directory', () => {
  it('shows the first page of accounts, and a pager with Previous off and Next on when there are more', async () => {
    const items = Array.from({ length: 20 }, (_, index) => account(index + 1));
    const { html, calls } = await renderDirectory('/admin/users', { page: 1 }, { items, total: 47, page: 1 });
    expect(calls).toEqual(['GET /api/admin/users?page=1&pageSize=20']);
    expect(namesIn(html)).toHaveLength(20);
    expect(namesIn(html)[0]).toBe('Person 1');
    const pager = pagerOf(html);
    expect(pager).toContain('Page 1 of 3 (47 accounts)');
    expect(pager).toMatch(/<button type="button" class="button" disabled="">Previous<\/button>/);
    expect(pager).toMatch(/<button type="button" class="button">Next<\/button>/);
  });

  it('opens on the page, search, role and status its address names, and the last page has Next off', async () => {
    const { html, calls } = await renderDirectory(
      '/admin/users?q=person&role=notary&status=active&page=3',
      { q: 'person', role: 'notary', status: 'active', page: 3 },
      { items: [account(41, { roles: ['notary'] })], total: 41, page: 3 },
    );
    expect(calls).toEqual(['GET /api/admin/users?q=person&role=notary&status=active&page=3&pageSize=20']);
    expect(html).toMatch(/<input[^>]*type="search"[^>]*value="person"/);
    expect(html).toMatch(/<option value="notary" selected="">/);
    expect(namesIn(html)).toEqual(['Person 41']);
    const pager = pagerOf(html);
    expect(pager).toContain('Page 3 of 3 (41 accounts)');
    expect(pager).toMatch(/<button type="button" class="button">Previous<\/button>/);
    expect(pager).toMatch(/<button type="button" class="button" disabled="">Next<\/button>/);
  });

  it('shows no pager when every account fits on one page', async () => {
    const { html } = await renderDirectory('/admin/users', { page: 1 }, { items: [account(1), account(2)], total: 2, page: 1 });
    expect(namesIn(html)).toEqual(['Person 1', 'Person 2']);
    expect(pagerOf(html)).toBeNull();
  });

  it('says when no account matches a search, and how to open the first one when there is none', async () => {
    const searched = await renderDirectory('/admin/users?q=nobody', { q: 'nobody', page: 1 }, { items: [], total: 0, page: 1 });
    expect(searched.html).toContain('<p class="empty">No account matches this search.</p>');
    expect(pagerOf(searched.html)).toBeNull();
    const none = await renderDirectory('/admin/users', { page: 1 }, { items: [], total: 0, page: 1 });
    expect(none.html).toContain('<p class="empty">No accounts yet. Use New user to open one.</p>');
  });
});
