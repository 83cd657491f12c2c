import { expect, type APIRequestContext, type Browser, type BrowserContextOptions, type Page } from '@playwright/test';
import { makePdf } from '../test/pdf-fixtures.ts';
import { completeNotaryProfileByApi, openAdminPage, totpCode, uniqueEmail, waitForMail } from './helpers.ts';

/**
 * One signed-in page per role, with the data each needs, made through the API (page.request) rather
 * than the UI: an approved notary, an approved title company whose job (one PDF, one invited
 * signer, a signature field, the session started) that notary holds, and that signer. Page-level
 * specs (layout, accessibility) then visit every route of the router in a loop.
 */
export interface RolePages {
  admin: Page;
  notary: Page;
  title: Page;
  signer: Page;
  anonymous: Page;
  /** A notary who registered and has yet to set up a second factor: the MFA pages' person. */
  pendingMfa: Page;
  jobId: string;
  documentId: string;
  /** The approved title company the title page's person works for. */
  companyId: string;
  /** An unused invitation link for a second signer of the job (a /claim/:token URL path). */
  spareClaimPath: string;
  spareSignerEmail: string;
  close: () => Promise<void>;
}

/** The routes a person opens without signing in (redirects to /login left out). */
export function signedOutRoutes(pages: Pick<RolePages, 'spareClaimPath'>): string[] {
  return [
    '/login',
    '/login?resetToken=an-expired-reset-token',
    '/register',
    '/register/user',
    '/register/notary',
    '/register/title-company',
    pages.spareClaimPath,
    '/claim/not-a-real-invitation',
    '/request-access',
    '/notarize',
    '/notarize-now',
    '/gnw-login',
    '/gnw/start',
    '/gnw/setup?jobId=none',
    '/session',
    '/session/complete',
    '/verify/resume/a-token',
    '/verify',
    '/verify-archive',
    '/help',
    '/docs/api',
  ];
}

/** The multi-factor pages, as a person half-way through signing in opens them. */
export const secondFactorRoutes = ['/mfa/setup', '/mfa/verify', '/mfa/verify?useEmail=1'];

export type SignedInRole = 'admin' | 'notary' | 'title' | 'signer';

/**
 * The signed-in routes each role visits: the pages that differ by role (the dashboard and its tabs,
 * the job, the signing list and workspace, the administrator's pages) for every role; the pages that
 * look the same whoever is signed in (redirects, signature capture, help, what is not built) once,
 * as the signer.
 */
export function signedInRoutes(role: SignedInRole, pages: Pick<RolePages, 'jobId' | 'documentId' | 'companyId'>): string[] {
  const { jobId, documentId, companyId } = pages;
  return [
    '/dashboard?tab=jobs',
    '/dashboard?tab=security',
    ...(role === 'admin'
      ? [
          '/dashboard?tab=approvals',
          '/admin/mail',
          '/admin/mail/templates',
          '/admin/users',
          '/admin/pricing',
          '/admin/title-companies',
          '/admin/new-title-company',
          '/admin/notaryloop-test',
          `/companies/${companyId}`,
          '/billing/pending',
          `/billing/company/${companyId}`,
          '/docs/api',
        ]
      : []),
    ...(role === 'title' ? ['/company', `/companies/${companyId}`, '/billing/company', '/docs/api'] : []),
    ...(role === 'admin' || role === 'notary' ? [`/jobs/${jobId}/recording`] : []),
    `/jobs/detail?jobId=${jobId}`,
    '/signing',
    `/signing/${jobId}/${documentId}`,
    ...(role === 'signer' ? [`/setup?jobId=${jobId}&start=video`, `/signing/${jobId}`, `/session/${jobId}`, '/signature', '/initials', '/help'] : []),
  ];
}

/** Opens a route and waits until nothing on the page says it is loading. */
export async function openRoute(page: Page, route: string) {
  await page.goto(route);
  await expect(page.locator('#root')).not.toBeEmpty();
  await expect(page.getByRole('status').filter({ hasText: /^(Loading|Checking)/ })).toHaveCount(0, { timeout: 10_000 });
}

export function baseUrl(): string {
  return `http://localhost:${process.env.E2E_PORT ?? '3210'}`;
}

type RequestOptions = NonNullable<Parameters<APIRequestContext['post']>[1]>;

/** A state-changing call from the page's context: cookie sessions need a same-origin Origin header. */
export async function apiCall<T>(
  request: APIRequestContext,
  method: 'post' | 'patch',
  url: string,
  options: Pick<RequestOptions, 'data' | 'multipart'> = {},
): Promise<T> {
  const response = await request[method](url, { headers: { origin: baseUrl() }, ...options });
  if (!response.ok()) throw new Error(`${method.toUpperCase()} ${url} answered ${response.status()}: ${await response.text()}`);
  return (await response.json()) as T;
}

export async function apiGet<T>(request: APIRequestContext, url: string): Promise<T> {
  const response = await request.get(url);
  if (!response.ok()) throw new Error(`GET ${url} answered ${response.status()}: ${await response.text()}`);
  return (await response.json()) as T;
}

/**
 * The notary runs the job's live session through the real routes: opens it, enters it, admits the
 * signers (each known personally to the notary, who enter too), opens the room, starts the session (the job moves in session) and starts
 * recording it. Fields are filled only then (decision 022).
 */
export async function startRecordedSession(jobId: string, notary: Page, signers: Array<{ page: Page; participantId: string }>) {
  const { sessionId } = await apiCall<{ sessionId: string }>(notary.request, 'post', '/api/video/session', { data: { jobId } });
  await apiCall(notary.request, 'post', `/api/jobs/${jobId}/session/join`, { data: { consentToRecording: true, deviceGroupId: 'notary-desk' } });
  const base = `/api/video/session/${sessionId}`;
  for (const [index, signer] of signers.entries()) {
    // Identified by the notary's personal knowledge (a bypass the state allows), so they may enter.
    await apiCall(notary.request, 'post', `/api/jobs/${jobId}/signers/${signer.participantId}/id-bypass`, {
      data: { enabled: true, reason: 'Identity step not under test here', method: 'personal_knowledge' },
    });
    await apiCall(signer.page.request, 'post', `/api/jobs/${jobId}/session/join`, { data: { consentToRecording: true, deviceGroupId: `signer-${index}` } });
    await apiCall(notary.request, 'post', `${base}/participants/${signer.participantId}/admit`);
  }
  await apiCall(notary.request, 'post', `${base}/activate/notary-desk`);
  await apiCall(notary.request, 'post', `${base}/start`);
  const { recordingId } = await apiCall<{ recordingId: string }>(notary.request, 'post', '/api/video/recording/start', { data: { sessionId } });
  return { sessionId, recordingId };
}

interface SignedInResponse {
  user: { id: string } | null;
  sessionToken: string | null;
}

/** Confirms the address with the link the app mailed, as the person would (POST /api/auth/verify-email). */
export async function confirmEmail(page: Page, email: string) {
  const mail = await waitForMail(email, /Confirm your email address/);
  const token = mail.text.match(/\/verify-email\/([A-Za-z0-9_-]+)/)?.[1];
  if (!token) throw new Error(`no confirmation link in the mail to ${email}`);
  await apiCall(page.request, 'post', '/api/auth/verify-email', { data: { token } });
}

/** Makes the web app see the session the cookie holds: the web app judges signed-in by the stored user. */
export async function storeUserInPage(page: Page) {
  const { user } = await apiGet<{ user: unknown }>(page.request, '/api/auth/me');
  await page.goto('/help');
  await page.evaluate((value) => sessionStorage.setItem('user', JSON.stringify(value)), user);
}

/** A notary registered, second factor linked and approved by the administrator, all through the API. */
export async function createApprovedNotary(page: Page, admin: Page, name: string) {
  const email = uniqueEmail('notary');
  const registered = await apiCall<SignedInResponse & { ticket: string | null }>(page.request, 'post', '/api/auth/register/notary', {
    data: {
      name,
      email,
      password: 'notary password',
      commissionState: 'VA',
      commissionNumber: 'VA-1357',
      commissionExpiresOn: '2031-05-31',
      county: 'Arlington',
    },
  });
  expect(registered.ticket).toBeTruthy();
  const { secret } = await apiCall<{ secret: string }>(page.request, 'post', '/api/auth/mfa/totp/setup/start');
  const linked = await apiCall<{ completedSignIn: SignedInResponse | null }>(page.request, 'post', '/api/auth/mfa/totp/setup/verify', {
    data: { token: totpCode(secret) },
  });
  const id = linked.completedSignIn?.user?.id ?? '';
  await completeNotaryProfileByApi(page);
  await apiCall(admin.request, 'post', `/api/notary/approve/${id}`);
  await confirmEmail(page, email);
  return id;
}

export async function openRolePages(browser: Browser, options: BrowserContextOptions = {}): Promise<RolePages> {
  const admin = await openAdminPage(browser, options);
  const opened = [admin.context()];
  const newPage = async () => {
    const context = await browser.newContext(options);
    opened.push(context);
    return context.newPage();
  };

  const notary = await newPage();
  const notaryId = await createApprovedNotary(notary, admin, 'Nadia Notary');
  await storeUserInPage(notary);

  const title = await newPage();
  const titleEmail = uniqueEmail('title');
  await apiCall(title.request, 'post', '/api/auth/register/title-company', {
    data: { name: 'Tess Title', email: titleEmail, password: 'title password', companyName: 'Harbor Title LLC' },
  });
  await confirmEmail(title, titleEmail);
  const pending = await apiGet<{ items: Array<{ id: string; name: string }> }>(admin.request, '/api/title-companies/pending');
  const company = pending.items.find((item) => item.name === 'Harbor Title LLC');
  if (company) await apiCall(admin.request, 'post', `/api/title-companies/${company.id}/approve`);
  await storeUserInPage(title);

  // The title company's job: one PDF, two invited signers, held by the notary.
  const signerEmail = uniqueEmail('signer');
  const spareSignerEmail = uniqueEmail('spare-signer');
  const job = await apiCall<{ id: string }>(title.request, 'post', '/api/jobs', {
    data: {
      title: 'Refinance closing for Sam Signer',
      notarizationType: 'acknowledgment',
      notaryId,
      signers: [
        { name: 'Sam Signer', email: signerEmail },
        { name: 'Tara Touch', email: spareSignerEmail },
      ],
    },
  });
  const uploaded = await apiCall<{ items: Array<{ id: string }> }>(title.request, 'post', `/api/jobs/${job.id}/documents`, {
    multipart: { files: { name: 'refinance-deed.pdf', mimeType: 'application/pdf', buffer: await makePdf(3, 'Refinance deed') } },
  });
  const documentId = uploaded.items[0]?.id ?? '';

  const claimPath = async (email: string) => {
    const mail = await waitForMail(email, /You are invited to sign/);
    const path = mail.text.match(/\/claim\/[A-Za-z0-9_-]+/)?.[0];
    if (!path) throw new Error(`no invitation link in the mail to ${email}`);
    return path;
  };
  const signer = await newPage();
  const signerClaim = await claimPath(signerEmail);
  await apiCall(signer.request, 'post', `/api/invites${signerClaim.replace('/claim', '')}/claim`, {
    data: { name: 'Sam Signer', email: signerEmail, password: 'signer password' },
  });
  await storeUserInPage(signer);
  const spareClaimPath = await claimPath(spareSignerEmail);

  // Fields for both signers, then the notary starts the session so they can be filled.
  const assets = await apiGet<{ participants: Array<{ id: string; role: string }> }>(notary.request, `/api/jobs/${job.id}/signing-assets`);
  for (const [index, participant] of assets.participants.filter((item) => item.role === 'signer').entries()) {
    await apiCall(notary.request, 'post', `/api/jobs/${job.id}/documents/${documentId}/fields`, {
      data: { type: 'signature', page: 1, x: 0.12 + index * 0.45, y: 0.55, width: 0.3, height: 0.06, participantId: participant.id },
    });
  }
  // A small field at the page's right edge: its fill button must stay on the page on a phone.
  const sam = assets.participants.find((item) => item.role === 'signer');
  await apiCall(notary.request, 'post', `/api/jobs/${job.id}/documents/${documentId}/fields`, {
    data: { type: 'initials', page: 1, x: 0.86, y: 0.9, width: 0.08, height: 0.05, participantId: sam?.id ?? null },
  });
  const current = await apiGet<{ version: number }>(notary.request, `/api/jobs/${job.id}`);
  await apiCall<{ version: number }>(notary.request, 'patch', `/api/jobs/${job.id}`, { data: { status: 'ready', version: current.version } });
  await startRecordedSession(job.id, notary, [{ page: signer, participantId: sam?.id ?? '' }]);

  const anonymous = await newPage();
  // Half-way through signing in: the pending session cookie and the pending-MFA record in session storage.
  const pendingMfa = await newPage();
  const pendingEmail = uniqueEmail('pending-notary');
  const response = await apiCall<unknown>(pendingMfa.request, 'post', '/api/auth/register/notary', {
    data: {
      name: 'Pia Pending',
      email: pendingEmail,
      password: 'notary password',
      commissionState: 'TX',
      commissionNumber: 'TX-24680',
      commissionExpiresOn: '2030-01-31',
      county: 'Travis',
    },
  });
  await pendingMfa.goto('/help');
  await pendingMfa.evaluate((record) => sessionStorage.setItem('pendingMfa', JSON.stringify(record)), {
    jobId: null,
    signerId: null,
    safeNext: null,
    rememberDevice: true,
    email: pendingEmail,
    response,
  });
  return {
    admin,
    notary,
    title,
    signer,
    anonymous,
    pendingMfa,
    jobId: job.id,
    documentId,
    companyId: company?.id ?? '',
    spareClaimPath,
    spareSignerEmail,
    close: async () => {
      for (const context of opened) await context.close();
    },
  };
}

/** Each invited person claims the invitation mailed to them, in a page of their own, and is signed in there. */
export async function claimInvitations(people: Array<{ name: string; email: string }>, newPage: () => Promise<Page>, password: string): Promise<Page[]> {
  const claimed: Page[] = [];
  for (const person of people) {
    const mail = await waitForMail(person.email, /You are invited to/);
    const claimPath = mail.text.match(/\/claim\/[A-Za-z0-9_-]+/)?.[0] ?? '';
    const page = await newPage();
    await apiCall(page.request, 'post', `/api/invites${claimPath.replace('/claim', '')}/claim`, { data: { name: person.name, email: person.email, password } });
    await storeUserInPage(page);
    claimed.push(page);
  }
  return claimed;
}
