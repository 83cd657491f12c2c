import type { ReactNode } from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { renderToStaticMarkup } from 'react-dom/server';
import { MemoryRouter } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { CompanyAgent, JobType, TitleCompany, TitleCompanyPage } from '#shared/title-companies.ts';
import { companyAgentsQueryOptions, companyJobTypesQueryOptions, titleCompanyPageQueryOptions } from '#web/api/title-companies.ts';
import { CompanyAgents } from './company-agents.tsx';
import { CompanyJobTypes } from './company-job-types.tsx';
import { TitleCompanyList } from './title-company-list.tsx';

/**
 * The administrators' list of title companies (search, status, pages, empty states) and a company
 * page's people and job types (lists and empty states), rendered as the browser first paints them
 * with the server's answers read through the app's own client over a stubbed fetch.
 */

const companyId = '11111111-1111-4111-8111-111111111111';

function company(overrides: Partial<TitleCompany> = {}): TitleCompany {
  return {
    id: companyId,
    name: 'Acme Title',
    status: 'approved',
    city: 'Richmond',
    state: 'VA',
    addressLine: null,
    phone: null,
    contactEmail: null,
    defaultNotary: null,
    agentsSeePrices: false,
    memberCount: 2,
    createdAt: '2026-10-01T15:00:00.000Z',
    approvedAt: '2026-10-02T15:00:00.000Z',
    closedAt: null,
    permissions: { canEdit: true, canManageAgents: true, canClose: true },
    ...overrides,
  };
}

/** A stand-in for the server: answers fetch by method, path and query, and records what was asked. */
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

function render(queryClient: QueryClient, address: string, element: ReactNode): string {
  return renderToStaticMarkup(
    <QueryClientProvider client={queryClient}>
      <MemoryRouter initialEntries={[address]}>{element}</MemoryRouter>
    </QueryClientProvider>,
  );
}

const pageOf = (items: TitleCompany[], total: number, page = 1): TitleCompanyPage => ({ items, total, page, pageSize: 20 });
const namesIn = (html: string) => [...html.matchAll(/<a href="\/companies\/[^"]+"[^>]*>([^<]+)<\/a>/g)].map((match) => match[1]);
const pagerOf = (html: string) => /<nav class="actions pager" aria-label="([^"]+)">(.*?)<\/nav>/.exec(html);

beforeEach(() => {
  vi.stubGlobal('sessionStorage', { getItem: () => null });
  vi.stubGlobal('localStorage', { getItem: () => null });
  // The app's client asks the page's port whether it may fall back to a local server (it may not on 3000).
  vi.stubGlobal('window', { location: { port: '3000' } });
});

describe('the title companies list', () => {
  /** The list at an address, with the answer to the query it makes there fetched first. */
  async function renderList(address: string, query: Parameters<typeof titleCompanyPageQueryOptions>[0], answer: TitleCompanyPage) {
    const queryString = new URLSearchParams(
      Object.entries({ q: query.q, status: query.status, page: query.page, pageSize: query.pageSize }).flatMap(([key, value]) =>
        value === undefined ? [] : [[key, String(value)]],
      ),
    ).toString();
    const calls = stubServer({ [`GET /api/title-companies?${queryString}`]: answer });
    const queryClient = new QueryClient();
    await queryClient.fetchQuery(titleCompanyPageQueryOptions(query));
    return { html: render(queryClient, address, <TitleCompanyList />), calls };
  }

  it('shows the first page of every company with its place, status and members, and pages on with Next', async () => {
    const items = [
      company(),
      company({ id: '22222222-2222-4222-8222-222222222222', name: 'Bay Title', city: null, state: null, status: 'pending', approvedAt: null }),
    ];
    const { html, calls } = await renderList('/admin/title-companies', { page: 1, pageSize: 20 }, pageOf(items, 45));
    expect(calls).toEqual(['GET /api/title-companies?page=1&pageSize=20']);
    expect(namesIn(html)).toEqual(['Acme Title', 'Bay Title']);
    expect(html).toContain('<td>Richmond, Virginia</td>');
    expect(html).toContain('<td>Not given</td>');
    expect(html).toContain('Waiting for approval');
    const pager = pagerOf(html);
    expect(pager?.[1]).toBe('Pages of title companies');
    expect(pager?.[2]).toContain('Page 1 of 3 (45 companies)');
    expect(pager?.[2]).toMatch(/<button type="button" class="button" disabled="">Previous<\/button>/);
    expect(pager?.[2]).toMatch(/<button type="button" class="button">Next<\/button>/);
    expect(html).not.toContain('class="empty"');
  });

  it('opens with the search, status and page its address names, and asks the server for exactly those', async () => {
    const { html, calls } = await renderList(
      '/admin/title-companies?q=acme&status=approved&page=2',
      { q: 'acme', status: 'approved', page: 2, pageSize: 20 },
      pageOf([company()], 21, 2),
    );
    expect(calls).toEqual(['GET /api/title-companies?q=acme&status=approved&page=2&pageSize=20']);
    expect(html).toMatch(/<input[^>]*type="search"[^>]*value="acme"/);
    expect(html).toMatch(/<option value="approved" selected="">Approved<\/option>/);
    expect(pagerOf(html)?.[2]).toContain('Page 2 of 2 (21 companies)');
    expect(pagerOf(html)?.[2]).toMatch(/<button type="button" class="button" disabled="">Next<\/button>/);
  });

  it('says when nothing matches a search, and how to add the first company when there is none', async () => {
    const searched = await renderList('/admin/title-companies?q=zzz', { q: 'zzz', page: 1, pageSize: 20 }, pageOf([], 0));
    expect(searched.html).toContain('<p class="empty">No title company matches this search.</p>');
    expect(searched.html).not.toContain('<table');
    expect(pagerOf(searched.html)).toBeNull();

    const none = await renderList('/admin/title-companies', { page: 1, pageSize: 20 }, pageOf([], 0));
    expect(none.html).toContain('<p class="empty">No title companies yet. Use New title company to add the first one.</p>');
  });

  it('ignores a status or page in the address that is none', async () => {
    const { calls } = await renderList('/admin/title-companies?status=sold&page=-3', { page: 1, pageSize: 20 }, pageOf([], 0));
    expect(calls).toEqual(['GET /api/title-companies?page=1&pageSize=20']);
  });
});

const member = (overrides: Partial<CompanyAgent>): CompanyAgent => ({
  id: 'm-1',
  userId: 'u-1',
  name: 'Tara Title',
  email: 'tara@acme.test',
  role: 'title',
  status: 'active',
  since: '2026-10-05T15:00:00.000Z',
  expiresAt: null,
  ...overrides,
});

describe('a company’s people', () => {
  async function renderAgents(items: CompanyAgent[], shown: TitleCompany = company()) {
    stubServer({ [`GET /api/title-companies/${companyId}/agents`]: { items } });
    const queryClient = new QueryClient();
    await queryClient.fetchQuery(companyAgentsQueryOptions(companyId));
    return render(queryClient, `/companies/${companyId}`, <CompanyAgents company={shown} isAdmin={false} />);
  }

  it('lists members apart from invitations not yet accepted, each with a way to remove it for those who manage the company', async () => {
    const html = await renderAgents([
      member({}),
      member({ id: 'm-2', userId: 'u-2', name: 'Andy Agent', email: 'andy@acme.test', role: 'title_agent' }),
      member({
        id: 'i-1',
        userId: null,
        name: 'Ivy Invited',
        email: 'ivy@acme.test',
        role: 'title_agent',
        status: 'invited',
        expiresAt: '2099-01-01T00:00:00.000Z',
      }),
    ]);
    const members = /<ul class="review-list" aria-label="Members">(.*?)<\/ul>/.exec(html)?.[1] ?? '';
    const invitations = /<ul class="review-list" aria-label="Invitations">(.*?)<\/ul>/.exec(html)?.[1] ?? '';
    expect([...members.matchAll(/<h3>([^<]+)<\/h3>/g)].map((match) => match[1])).toEqual(['Tara Title', 'Andy Agent']);
    expect([...invitations.matchAll(/<h3>([^<]+)<\/h3>/g)].map((match) => match[1])).toEqual(['Ivy Invited']);
    expect(members).toContain('Remove<span class="visually-hidden"> Andy Agent</span>');
    expect(invitations).toContain('Withdraw invitation<span class="visually-hidden"> to Ivy Invited</span>');
    expect(html).toContain('Invite someone');
  });

  it('says no one works there yet, with the next step for those who manage it and without it for others', async () => {
    expect(await renderAgents([])).toContain('<p class="empty">No one works for this company yet. Use Invite someone to send the first invitation.</p>');
    const reader = await renderAgents([], company({ permissions: { canEdit: false, canManageAgents: false, canClose: false } }));
    expect(reader).toContain('<p class="empty">No one works for this company yet.</p>');
    expect(reader).not.toContain('Invite someone');
  });
});

const jobType = (overrides: Partial<JobType>): JobType => ({
  id: 'jt-1',
  companyId,
  name: 'Refinance closing',
  notarizationType: 'acknowledgment',
  documentTags: ['signing'],
  witnessCount: 0,
  instructions: 'Check the borrower’s middle name.',
  createdAt: '2026-10-05T15:00:00.000Z',
  updatedAt: '2026-10-05T15:00:00.000Z',
  ...overrides,
});

describe('a company’s job types', () => {
  async function renderJobTypes(items: JobType[], shown: TitleCompany = company()) {
    stubServer({ [`GET /api/title-companies/${companyId}/job-types`]: { items } });
    const queryClient = new QueryClient();
    await queryClient.fetchQuery(companyJobTypesQueryOptions(companyId));
    return render(queryClient, `/companies/${companyId}`, <CompanyJobTypes company={shown} />);
  }

  it('lists each job type with what it sets and its instructions, and Edit and Delete for those who manage the company', async () => {
    const html = await renderJobTypes([
      jobType({}),
      jobType({ id: 'jt-2', name: 'Seller deed', notarizationType: 'jurat', witnessCount: 2, instructions: '' }),
    ]);
    const list = /<ul class="review-list" aria-label="Job types">(.*?)<\/ul>/.exec(html)?.[1] ?? '';
    expect([...list.matchAll(/<h3>([^<]+)<\/h3>/g)].map((match) => match[1])).toEqual(['Refinance closing', 'Seller deed']);
    expect(list.match(/Instructions for the notary: /g)).toHaveLength(1);
    expect(list).toContain('Edit<span class="visually-hidden"> Seller deed</span>');
    expect(list).toContain('Delete<span class="visually-hidden"> Refinance closing</span>');
    expect(html).toContain('New job type');
  });

  it('says there are none yet, with the next step for those who manage the company, and nothing to change for a closed one', async () => {
    expect(await renderJobTypes([])).toContain(
      '<p class="empty">No job types yet. Add one for each kind of closing you do often; staff then pick it in New Signing Request.</p>',
    );
    const closed = await renderJobTypes([jobType({})], company({ status: 'closed' }));
    expect(closed).toContain('<h3>Refinance closing</h3>');
    expect(closed).not.toContain('New job type');
    expect(closed).not.toContain('Delete<span');
    expect(await renderJobTypes([], company({ status: 'closed' }))).toContain('<p class="empty">This company has no job types yet.</p>');
  });
});
