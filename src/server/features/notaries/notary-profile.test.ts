import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getCalendarDay } from '#shared/dates.ts';
import { auditEvents, emailOutbox, jobs, notaryExpiryWarnings, notaryProfiles, titleCompanies, userSignatures } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, uniqueEmail } from '#test/job-fixtures.ts';
import { completeNotaryProfile } from '#test/notary-fixtures.ts';
import { makePng } from '#test/png-fixtures.ts';
import { makePdf } from '#test/pdf-fixtures.ts';
import { sendNotaryExpiryWarnings } from './notary-expiry.service.ts';

let t: TestApp;
let kit: ReturnType<typeof createJobKit>;
let admin: TestUser;
let signer: TestUser;
let title: TestUser;
beforeAll(async () => {
  t = await createTestApp({ REGISTRATIONS_PER_ADDRESS_PER_HOUR: '10000', LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createJobKit(t);
  admin = await t.createUser({ roles: ['admin'], name: 'Ada Admin', email: uniqueEmail('ada') });
  signer = await t.createUser({ roles: ['signer'] });
  title = await t.createUser({ roles: ['title'] });
});
afterAll(async () => t.close());

const dayFromToday = (days: number) => getCalendarDay(new Date(Date.now() + days * 86_400_000));

/** A notary who registered through the real route: pending, with only what registration asks. */
async function registerNotary(name = `Nora ${randomUUID().slice(0, 4)}`) {
  const email = uniqueEmail('nora');
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/auth/register/notary',
    payload: {
      name,
      email,
      password: 'notary password',
      commissionState: 'VA',
      commissionNumber: `VA-${randomUUID().slice(0, 6)}`,
      commissionExpiresOn: '2031-06-30',
      county: 'Fairfax',
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  const body = res.json();
  return {
    id: body.user.id as string,
    name,
    email,
    password: 'notary password',
    roles: ['notary'] as const,
    headers: { authorization: `Bearer ${body.sessionToken as string}` },
  };
}

/** An approved notary with a complete profile. */
async function createCompleteNotary(overrides: Parameters<typeof completeNotaryProfile>[2] = {}) {
  const notary = await kit.createNotary({ name: `Quinn ${randomUUID().slice(0, 4)}` });
  await completeNotaryProfile(t.db, notary.id, overrides);
  return notary;
}

function multipart(fields: Record<string, string>, file: { name: string; content: Buffer; contentType: string } | null) {
  const boundary = `----ron${randomUUID().replace(/-/g, '')}`;
  const chunks: Buffer[] = Object.entries(fields).map(([key, value]) =>
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${key}"\r\n\r\n${value}\r\n`),
  );
  if (file) {
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: ${file.contentType}\r\n\r\n`),
      file.content,
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

const as = async (who: TestUser | { headers: Record<string, string> }) => ('headers' in who ? who.headers : kit.headersFor(who));
const getProfile = async (who: TestUser | { headers: Record<string, string> }, url = '/api/notary/profile') =>
  t.app.inject({ method: 'GET', url, headers: await as(who) });
const putProfile = async (who: TestUser | { headers: Record<string, string> }, payload: Record<string, unknown>, url = '/api/notary/profile') =>
  t.app.inject({ method: 'PUT', url, headers: await as(who), payload });
const upload = async (
  who: TestUser | { headers: Record<string, string> },
  kind: string | null,
  file: { name: string; content: Buffer; contentType: string } | null,
  url = '/api/notary/profile/upload',
) => {
  const body = multipart(kind === null ? {} : { kind }, file);
  return t.app.inject({ method: 'POST', url, headers: { ...(await as(who)), ...body.headers }, payload: body.payload });
};
const accountAudit = (action: string, notaryId: string) =>
  t.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.action, action), eq(auditEvents.scope, 'account')))
    .then((rows) => rows.filter((row) => (row.data as { notaryId?: string }).notaryId === notaryId));

const allMissing = [
  'The name as commissioned is missing.',
  'The commission start date is missing.',
  'The surety bond amount is missing.',
  'The surety bond expiry date is missing.',
  'The E&O insurance amount is missing.',
  'The E&O insurance expiry date is missing.',
  'No commission certificate is uploaded.',
  'No surety bond document is uploaded.',
  'No E&O insurance policy is uploaded.',
  'No seal image is uploaded.',
  'No signature is saved.',
  'No initials are saved.',
];

describe('the notary’s own profile', () => {
  it('shows a newly registered notary their commission and everything missing before approval', async () => {
    const notary = await registerNotary();
    const res = await getProfile(notary);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      userId: notary.id,
      commissionState: 'VA',
      county: 'Fairfax',
      commissionExpiresOn: '2031-06-30',
      commissionedName: null,
      approvalStatus: 'pending',
      isActive: true,
      certificate: { source: null, notAfter: null },
      signature: null,
      initials: null,
      files: [],
      missing: allMissing,
      workBlocker: 'Your notary profile is waiting for an administrator’s approval.',
    });
  });

  it('saves the commission, bond and E&O details, audits the change and shortens the missing list', async () => {
    const notary = await registerNotary();
    const res = await putProfile(notary, {
      commissionedName: 'Nora Q. Public',
      commissionStartsOn: '2023-07-01',
      bondAmountCents: 1_000_000,
      bondExpiresOn: '2030-01-31',
      eoAmountCents: 2_500_000,
      eoExpiresOn: '2030-02-28',
      county: 'Arlington',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ commissionedName: 'Nora Q. Public', bondAmountCents: 1_000_000, eoExpiresOn: '2030-02-28', county: 'Arlington' });
    expect(res.json().missing).toEqual(allMissing.slice(6));
    const [event] = await accountAudit('notary.profile_updated', notary.id);
    expect(event?.data).toMatchObject({ fields: expect.arrayContaining(['commissionedName', 'county', 'bondAmountCents']), needsReapproval: false });
  });

  it.each([
    [{ commissionStartsOn: '2026-02-30' }, 'The commission start date must be a real date as YYYY-MM-DD.'],
    [{ commissionExpiresOn: 'next year' }, 'The commission expiry date must be a real date as YYYY-MM-DD.'],
    [{ commissionStartsOn: '2032-01-01' }, 'The commission must start before it expires.'],
    [{ bondExpiresOn: '2200-01-01' }, 'The bond expiry date must be between 1950 and 2100.'],
    [{ bondAmountCents: -5 }, 'The bond amount must be at least $1.00.'],
    [{ eoAmountCents: 10.5 }, 'The E&O insurance amount must be whole cents.'],
    [{ eoAmountCents: '100' }, 'The E&O insurance amount must be an amount in cents.'],
    [{ commissionState: 'XX' }, 'Choose the state of your commission.'],
  ])('refuses %j with a sentence and changes nothing', async (payload, message) => {
    const notary = await registerNotary();
    const res = await putProfile(notary, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(message);
    expect((await getProfile(notary)).json()).toMatchObject({
      commissionStartsOn: null,
      commissionExpiresOn: '2031-06-30',
      bondAmountCents: null,
      commissionState: 'VA',
    });
  });

  it('refuses a field the profile does not have', async () => {
    const notary = await registerNotary();
    const res = await putProfile(notary, { approvalStatus: 'approved' });
    expect(res.statusCode).toBe(400);
    expect((await getProfile(notary)).json().approvalStatus).toBe('pending');
  });

  it('refuses the profile routes to people who are not notaries', async () => {
    for (const user of [signer, title]) {
      expect((await getProfile(user)).statusCode).toBe(403);
      expect((await putProfile(user, { county: 'Fairfax' })).statusCode).toBe(403);
      expect((await upload(user, 'bond', { name: 'bond.pdf', content: await makePdf(), contentType: 'application/pdf' })).statusCode).toBe(403);
    }
    expect((await t.app.inject({ method: 'GET', url: '/api/notary/profile' })).statusCode).toBe(401);
  });
});

describe('profile documents', () => {
  it('stores a PDF, PNG or JPEG by its first bytes and lists it on the profile', async () => {
    const notary = await registerNotary();
    const pdf = await upload(notary, 'commission_certificate', { name: 'commission.pdf', content: await makePdf(), contentType: 'application/pdf' });
    expect(pdf.statusCode, pdf.body).toBe(201);
    expect(pdf.json()).toMatchObject({ kind: 'commission_certificate', fileName: 'commission.pdf', contentType: 'application/pdf' });
    // The declared type is ignored: the bytes say PNG.
    const seal = await upload(notary, 'seal_image', { name: 'seal.png', content: makePng(40, 40), contentType: 'application/octet-stream' });
    expect(seal.json()).toMatchObject({ kind: 'seal_image', contentType: 'image/png' });
    const jpeg = await upload(notary, 'bond', {
      name: 'bond.jpg',
      content: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46]),
      contentType: 'image/jpeg',
    });
    expect(jpeg.json()).toMatchObject({ contentType: 'image/jpeg' });
    const profile = (await getProfile(notary)).json();
    expect(profile.files.map((file: { kind: string }) => file.kind).sort()).toEqual(['bond', 'commission_certificate', 'seal_image']);
    expect(profile.missing).not.toContain('No seal image is uploaded.');
    expect(profile.missing).toContain('No E&O insurance policy is uploaded.');
    expect(await accountAudit('notary.profile_file_uploaded', notary.id)).toHaveLength(3);
  });

  it('deletes a document without touching the same bytes stored for a job', async () => {
    const notary = await kit.createNotary({ name: `Bea ${randomUUID().slice(0, 4)}` });
    const job = await kit.createJob(notary, { notaryId: notary.id, signers: [{ name: 'Sam Same', email: uniqueEmail('same') }] });
    const documentId = await kit.uploadPdf(notary, job.id);
    const original = await kit.call(notary, 'GET', `/api/jobs/${job.id}/documents/${documentId}/file`);
    expect(original.statusCode).toBe(200);
    const stored = await upload(notary, 'bond', { name: 'bond.pdf', content: original.rawPayload, contentType: 'application/pdf' });
    expect(stored.statusCode, stored.body).toBe(201);
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/api/notary/profile/${notary.id}/file/${stored.json().id}`,
      headers: await as(await t.createUser({ roles: ['admin'] })),
    });
    expect(deleted.statusCode, deleted.body).toBe(200);
    const after = await kit.call(notary, 'GET', `/api/jobs/${job.id}/documents/${documentId}/file`);
    expect(after.statusCode).toBe(200);
    expect(after.rawPayload.equals(original.rawPayload)).toBe(true);
  });

  it('refuses other types, a PDF as the seal, no kind, no file and files over 10 MB', async () => {
    const notary = await registerNotary();
    const text = await upload(notary, 'bond', { name: 'bond.pdf', content: Buffer.from('not a pdf at all'), contentType: 'application/pdf' });
    expect(text.statusCode).toBe(415);
    expect(text.json()).toMatchObject({ error: 'unsupported_type', message: 'Upload a PDF, PNG or JPEG file.' });
    const sealPdf = await upload(notary, 'seal_image', { name: 'seal.pdf', content: await makePdf(), contentType: 'application/pdf' });
    expect(sealPdf.json()).toMatchObject({ error: 'unsupported_type', message: 'The seal image must be a PNG or JPEG picture.' });
    const noKind = await upload(notary, null, { name: 'bond.pdf', content: await makePdf(), contentType: 'application/pdf' });
    expect(noKind.statusCode).toBe(400);
    const badKind = await upload(notary, 'diploma', { name: 'bond.pdf', content: await makePdf(), contentType: 'application/pdf' });
    expect(badKind.json().message).toBe('Say which document this is: commission_certificate, bond, eo_insurance or seal_image.');
    const noFile = await upload(notary, 'bond', null);
    expect(noFile.json()).toMatchObject({ error: 'no_file', message: 'Choose a file to upload (PDF, PNG or JPEG).' });
    const big = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(10 * 1024 * 1024 + 10)]);
    const tooLarge = await upload(notary, 'bond', { name: 'big.pdf', content: big, contentType: 'application/pdf' });
    expect(tooLarge.statusCode).toBe(413);
    expect((await getProfile(notary)).json().files).toEqual([]);
  });

  it('lets only the notary and administrators download a file', async () => {
    const notary = await registerNotary();
    const content = await makePdf();
    const file = (await upload(notary, 'bond', { name: 'bond.pdf', content, contentType: 'application/pdf' })).json();
    const own = await t.app.inject({ method: 'GET', url: file.url, headers: notary.headers });
    expect(own.statusCode).toBe(200);
    expect(own.headers['content-type']).toBe('application/pdf');
    expect(own.rawPayload.equals(content)).toBe(true);
    expect((await t.app.inject({ method: 'GET', url: file.url, headers: await kit.headersFor(admin) })).statusCode).toBe(200);
    const other = await createCompleteNotary();
    for (const stranger of [other, signer, title]) {
      const res = await t.app.inject({ method: 'GET', url: file.url, headers: await kit.headersFor(stranger) });
      expect(res.statusCode).toBe(404);
    }
  });
});

describe('approval', () => {
  it('is refused while the profile is incomplete, with the missing items, and goes through once complete', async () => {
    const notary = await registerNotary('Ivy Incomplete');
    const adminHeaders = await kit.headersFor(admin);
    const refused = await t.app.inject({ method: 'POST', url: `/api/notary/approve/${notary.id}`, headers: adminHeaders });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ error: 'profile_incomplete', detail: { missing: allMissing } });
    expect(refused.json().message).toMatch(
      /^Ivy Incomplete cannot be approved yet: the profile is incomplete\. Missing: The name as commissioned is missing\./,
    );
    expect((await getProfile(notary)).json().approvalStatus).toBe('pending');
    expect(await accountAudit('notary.approved', notary.id)).toEqual([]);
    await completeNotaryProfile(t.db, notary.id);
    const approved = await t.app.inject({ method: 'POST', url: `/api/notary/approve/${notary.id}`, headers: adminHeaders });
    expect(approved.statusCode, approved.body).toBe(200);
    expect((await getProfile(notary)).json()).toMatchObject({ approvalStatus: 'approved', missing: [], workBlocker: null });
  });

  it('is refused when the bond has expired', async () => {
    const notary = await registerNotary();
    await completeNotaryProfile(t.db, notary.id, { bondExpiresOn: '2024-01-31' });
    const res = await t.app.inject({ method: 'POST', url: `/api/notary/approve/${notary.id}`, headers: await kit.headersFor(admin) });
    expect(res.statusCode).toBe(409);
    expect(res.json().detail.missing).toEqual(['The surety bond expired on 2024-01-31.']);
  });

  it('sends an approved notary back for approval when their commission number changes', async () => {
    const notary = await createCompleteNotary();
    const res = await putProfile(notary, { commissionNumber: 'VA-NEW-1' });
    expect(res.json()).toMatchObject({
      approvalStatus: 'pending',
      commissionNumber: 'VA-NEW-1',
      workBlocker: 'Your notary profile is waiting for an administrator’s approval.',
    });
    const [event] = await accountAudit('notary.profile_updated', notary.id);
    expect(event?.data).toMatchObject({ fields: ['commissionNumber'], needsReapproval: true });
    const lookup = await t.app.inject({ method: 'GET', url: `/api/notary/lookup?q=${encodeURIComponent(notary.name)}`, headers: await kit.headersFor(title) });
    expect(lookup.json().items).toEqual([]);
  });

  it('keeps an approved notary approved when only the bond changes', async () => {
    const notary = await createCompleteNotary();
    expect((await putProfile(notary, { bondAmountCents: 1_500_000 })).json()).toMatchObject({ approvalStatus: 'approved', bondAmountCents: 1_500_000 });
  });
});

describe('administrators’ tools', () => {
  it('refuse every admin route to signers, title companies and notaries', async () => {
    const notary = await createCompleteNotary();
    const other = await createCompleteNotary();
    const routes: Array<[string, string]> = [
      ['GET', '/api/notary/search'],
      ['GET', `/api/notary/profile/${other.id}`],
      ['PUT', `/api/notary/profile/${other.id}`],
      ['POST', `/api/notary/activate/${other.id}`],
      ['POST', `/api/notary/deactivate/${other.id}`],
      ['DELETE', `/api/notary/signature/${other.id}`],
      ['DELETE', `/api/notary/initials/${other.id}`],
      ['GET', `/api/notary/${other.id}/title-companies`],
      ['GET', '/api/notary/approved'],
    ];
    for (const user of [signer, title, notary]) {
      for (const [method, url] of routes) {
        const res = await kit.call(user, method as 'GET', url, method === 'PUT' ? { county: 'X' } : undefined);
        expect(res.statusCode, `${method} ${url}`).toBe(403);
      }
      expect(
        (await upload(user, 'bond', { name: 'b.pdf', content: await makePdf(), contentType: 'application/pdf' }, `/api/notary/profile/${other.id}/upload`))
          .statusCode,
      ).toBe(403);
    }
    expect((await getProfile(other)).json()).toMatchObject({ isActive: true, county: 'Fairfax' });
  });

  it('answer 404 for an unknown notary and 400 for an id that is not a UUID', async () => {
    expect((await getProfile(admin, `/api/notary/profile/${randomUUID()}`)).statusCode).toBe(404);
    expect((await getProfile(admin, '/api/notary/profile/12')).json()).toMatchObject({ error: 'validation_failed', message: 'Notary id must be a UUID.' });
  });

  it('search every notary by words, approval and activity, a page at a time', async () => {
    const marker = `Zed${randomUUID().slice(0, 5)}`;
    const first = await kit.createNotary({ name: `${marker} Alpha` });
    const second = await kit.createNotary({ name: `${marker} Beta` });
    const pending = await registerNotary(`${marker} Gamma`);
    await kit.call(admin, 'POST', `/api/notary/deactivate/${second.id}`);
    const search = async (query: string) => (await kit.call(admin, 'GET', `/api/notary/search?${query}`)).json();
    expect(await search(`q=${marker}`)).toMatchObject({ total: 3, page: 1, pageSize: 25 });
    expect((await search(`q=${marker}&approval=pending`)).items.map((item: { userId: string }) => item.userId)).toEqual([pending.id]);
    expect((await search(`q=${marker}&active=false`)).items).toEqual([expect.objectContaining({ userId: second.id, isActive: false })]);
    const page2 = await search(`q=${marker}&pageSize=2&page=2`);
    expect(page2).toMatchObject({ total: 3, page: 2, pageSize: 2 });
    expect(page2.items.map((item: { name: string }) => item.name)).toEqual([`${marker} Gamma`]);
    expect((await search(`q=${marker}&pageSize=2`)).items.map((item: { userId: string }) => item.userId)).toEqual([first.id, second.id]);
    const bad = await kit.call(admin, 'GET', '/api/notary/search?pageSize=500');
    expect(bad.json()).toMatchObject({ error: 'validation_failed', message: 'Ask for 1 to 100 notaries a page.' });
    expect((await kit.call(admin, 'GET', '/api/notary/search?approval=maybe')).statusCode).toBe(400);
  });

  it('read and edit a notary’s profile and file a document for them, audited', async () => {
    const notary = await registerNotary();
    const read = await getProfile(admin, `/api/notary/profile/${notary.id}`);
    expect(read.json()).toMatchObject({ userId: notary.id, missing: allMissing, workBlocker: `${notary.name} is not an approved notary yet.` });
    const edited = await putProfile(admin, { commissionedName: 'Nora Official' }, `/api/notary/profile/${notary.id}`);
    expect(edited.json().commissionedName).toBe('Nora Official');
    const filed = await upload(
      admin,
      'eo_insurance',
      { name: 'eo.pdf', content: await makePdf(), contentType: 'application/pdf' },
      `/api/notary/profile/${notary.id}/upload`,
    );
    expect(filed.statusCode).toBe(201);
    const [event] = await accountAudit('notary.profile_file_uploaded', notary.id);
    expect(event?.actorId).toBe(admin.id);
    expect((await getProfile(notary)).json().files).toHaveLength(1);
  });

  it('delete a notary’s file (blob included), audited, and 404 a file of someone else', async () => {
    const notary = await registerNotary();
    const file = (await upload(notary, 'bond', { name: 'bond.pdf', content: await makePdf(2, 'Bond'), contentType: 'application/pdf' })).json();
    const other = await registerNotary();
    expect((await kit.call(admin, 'DELETE', `/api/notary/profile/${other.id}/file/${file.id}`)).statusCode).toBe(404);
    const res = await kit.call(admin, 'DELETE', `/api/notary/profile/${notary.id}/file/${file.id}`);
    expect(res.json()).toEqual({ ok: true, message: 'bond.pdf was deleted.' });
    expect((await getProfile(notary)).json().files).toEqual([]);
    expect((await t.app.inject({ method: 'GET', url: file.url, headers: notary.headers })).statusCode).toBe(404);
    expect(await accountAudit('notary.profile_file_deleted', notary.id)).toHaveLength(1);
  });

  it('remove a notary’s signature and initials, which the missing list then asks for again', async () => {
    const notary = await createCompleteNotary();
    const signature = await kit.call(admin, 'DELETE', `/api/notary/signature/${notary.id}`);
    expect(signature.json()).toEqual({ ok: true, message: `${notary.name}’s signature was removed; they must save a new one.` });
    expect((await kit.call(admin, 'DELETE', `/api/notary/initials/${notary.id}`)).statusCode).toBe(200);
    expect((await getProfile(notary)).json()).toMatchObject({ signature: null, initials: null, missing: ['No signature is saved.', 'No initials are saved.'] });
    // The rows stay for documents already signed with them.
    expect(await t.db.select().from(userSignatures).where(eq(userSignatures.userId, notary.id))).toHaveLength(2);
    const again = await kit.call(admin, 'DELETE', `/api/notary/signature/${notary.id}`);
    expect(again.json()).toMatchObject({ error: 'not_found', message: `${notary.name} has no saved signature.` });
    expect(await accountAudit('notary.signature_removed', notary.id)).toHaveLength(1);
    expect(await accountAudit('notary.initials_removed', notary.id)).toHaveLength(1);
  });

  it('list the title companies a notary worked for', async () => {
    const notary = await createCompleteNotary();
    const [company] = await t.db
      .insert(titleCompanies)
      .values({ name: `Acme Title ${randomUUID().slice(0, 4)}`, approvalStatus: 'approved' })
      .returning();
    await t.db.insert(jobs).values([
      { title: 'One', notarizationType: 'acknowledgment', notaryId: notary.id, companyId: company?.id ?? null },
      { title: 'Two', notarizationType: 'acknowledgment', notaryId: notary.id, companyId: company?.id ?? null },
      { title: 'Solo', notarizationType: 'acknowledgment', notaryId: notary.id, companyId: null },
    ]);
    const res = await kit.call(admin, 'GET', `/api/notary/${notary.id}/title-companies`);
    expect(res.json()).toEqual({ items: [{ id: company?.id, name: company?.name, jobCount: 2, lastJobAt: expect.any(String) }] });
    expect((await kit.call(admin, 'GET', `/api/notary/${randomUUID()}/title-companies`)).statusCode).toBe(404);
  });
});

describe('who may take and seal work', () => {
  const lookupIds = async (notary: TestUser) =>
    (await kit.call(title, 'GET', `/api/notary/lookup?q=${encodeURIComponent(notary.name)}`)).json().items.map((item: { userId: string }) => item.userId);
  const sealAttempt = async (notary: TestUser) => {
    const [job] = await t.db
      .insert(jobs)
      .values({ title: 'Seal me', notarizationType: 'acknowledgment', notaryId: notary.id, status: 'in_session' })
      .returning();
    return kit.call(notary, 'POST', `/api/jobs/${job?.id}/complete-job`);
  };

  it('a deactivated notary signs in but is not listed, assigned or allowed to seal; activation restores all', async () => {
    const notary = await createCompleteNotary();
    const agent = await t.createUser({ roles: ['title_agent'] });
    const deactivated = await kit.call(admin, 'POST', `/api/notary/deactivate/${notary.id}`);
    expect(deactivated.json()).toEqual({ ok: true, message: `${notary.name} is deactivated: they can sign in but take no new work.` });
    expect((await kit.call(admin, 'POST', `/api/notary/deactivate/${notary.id}`)).statusCode).toBe(409);
    expect((await t.signInAs(notary)).authorization).toMatch(/^Bearer /);
    expect(await lookupIds(notary)).toEqual([]);
    const create = await kit.call(agent, 'POST', '/api/jobs', { title: 'Deed', notarizationType: 'acknowledgment', notaryId: notary.id });
    expect(create.statusCode).toBe(409);
    expect(create.json()).toEqual({ error: 'notary_unavailable', message: `${notary.name} is deactivated and takes no new work. Choose another notary.` });
    const job = await kit.createJob(agent, {});
    const replace = await kit.call(agent, 'POST', `/api/jobs/${job.id}/replace-notary`, { notaryId: notary.id });
    expect(replace.statusCode).toBe(409);
    const seal = await sealAttempt(notary);
    expect(seal.statusCode).toBe(409);
    expect(seal.json().message).toBe('An administrator deactivated your notary account; you take no new work. The job cannot be sealed.');
    expect(await accountAudit('notary.deactivated', notary.id)).toHaveLength(1);

    expect((await kit.call(admin, 'POST', `/api/notary/activate/${notary.id}`)).json().message).toBe(
      `${notary.name} is active again and can be assigned work.`,
    );
    expect(await lookupIds(notary)).toEqual([notary.id]);
    expect((await kit.call(agent, 'POST', `/api/jobs/${job.id}/replace-notary`, { notaryId: notary.id })).statusCode).toBe(200);
    // Past the notary checks, the seal stops at the next one: the job has no documents.
    expect((await sealAttempt(notary)).json().message).toBe('The job has no signing documents.');
    expect(await accountAudit('notary.activated', notary.id)).toHaveLength(1);
  });

  it('a notary whose commission expired is not listed, assigned or allowed to seal', async () => {
    const notary = await createCompleteNotary();
    await t.db.update(notaryProfiles).set({ commissionExpiresOn: '2025-03-31' }).where(eq(notaryProfiles.userId, notary.id));
    const agent = await t.createUser({ roles: ['title_agent'] });
    expect(await lookupIds(notary)).toEqual([]);
    const create = await kit.call(agent, 'POST', '/api/jobs', { title: 'Deed', notarizationType: 'acknowledgment', notaryId: notary.id });
    expect(create.json()).toEqual({ error: 'notary_unavailable', message: `${notary.name}’s notary commission expired on 2025-03-31. Choose another notary.` });
    const seal = await sealAttempt(notary);
    expect(seal.json()).toMatchObject({
      error: 'notary_unavailable',
      message: 'Your notary commission expired on 2025-03-31; update it in your profile. The job cannot be sealed.',
    });
    expect((await getProfile(notary)).json().warnings).toEqual([
      { item: 'commission', expiresOn: '2025-03-31', isExpired: true, message: 'Your notary commission expired on 2025-03-31.' },
    ]);
  });

  it('a job already given to a notary who was then deactivated cannot be sent to them', async () => {
    const notary = await createCompleteNotary();
    const agent = await t.createUser({ roles: ['title_agent'] });
    const [job] = await t.db
      .insert(jobs)
      .values({ title: 'Ready deed', notarizationType: 'acknowledgment', notaryId: notary.id, status: 'ready', createdBy: agent.id })
      .returning();
    await kit.call(admin, 'POST', `/api/notary/deactivate/${notary.id}`);
    const res = await kit.call(agent, 'POST', `/api/jobs/${job?.id}/notify-ready-for-notary`);
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toBe(`${notary.name} is deactivated and takes no new work. Choose another notary.`);
    const mails = await t.db
      .select()
      .from(emailOutbox)
      .where(and(eq(emailOutbox.toAddress, notary.email), eq(emailOutbox.kind, 'job_ready_for_notary')));
    expect(mails).toEqual([]);
  });

  it('a pending notary cannot be assigned (409, with the reason)', async () => {
    const notary = await registerNotary('Pat Pending');
    const agent = await t.createUser({ roles: ['title_agent'] });
    const res = await kit.call(agent, 'POST', '/api/jobs', { title: 'Deed', notarizationType: 'acknowledgment', notaryId: notary.id });
    expect(res.json()).toEqual({ error: 'notary_unavailable', message: 'Pat Pending is not an approved notary yet. Choose another notary.' });
  });
});

describe('expiry warnings', () => {
  it('show a banner on the profile for items expiring within 30 days', async () => {
    const notary = await createCompleteNotary({ bondExpiresOn: dayFromToday(10), eoExpiresOn: dayFromToday(45) });
    const warnings = (await getProfile(notary)).json().warnings;
    expect(warnings).toEqual([
      {
        item: 'bond',
        expiresOn: dayFromToday(10),
        isExpired: false,
        message: `Your surety bond expires in 10 days, on ${dayFromToday(10)}. Renew it and update your profile.`,
      },
    ]);
  });

  it('email the notary and the administrators once per item per expiry date (controlled clock)', async () => {
    const notary = await createCompleteNotary({ commissionExpiresOn: '2031-06-30', bondExpiresOn: '2031-07-15', eoExpiresOn: '2032-01-31' });
    const deps = { db: t.db, publicUrl: 'https://ron.example.test' };
    const mailTo = (address: string) =>
      t.db
        .select()
        .from(emailOutbox)
        .where(and(eq(emailOutbox.toAddress, address), eq(emailOutbox.kind, 'notary_expiry_warning')));
    const adminMail = () =>
      t.db
        .select()
        .from(emailOutbox)
        .where(and(eq(emailOutbox.toAddress, admin.email), eq(emailOutbox.kind, 'notary_expiry_warning_admin')))
        .then((rows) => rows.filter((row) => row.textBody.includes(notary.email)));

    await sendNotaryExpiryWarnings(deps, new Date('2031-05-30T12:00:00Z'));
    expect(await mailTo(notary.email)).toEqual([]);

    await sendNotaryExpiryWarnings(deps, new Date('2031-06-01T06:00:00Z'));
    const first = await mailTo(notary.email);
    expect(first.map((mail) => mail.subject)).toEqual(['Your notary commission expires on Jun 30, 2031']);
    expect(first[0]?.textBody).toContain('Your notary commission expires in 29 days, on Jun 30, 2031.');
    expect(first[0]?.htmlBody).toContain('Your notary commission expires in 29 days, on Jun 30, 2031.');
    expect(first[0]?.textBody).toContain('https://ron.example.test/dashboard?tab=profile');
    expect((await adminMail()).map((mail) => mail.subject)).toEqual([`${notary.name}’s notary commission expires on Jun 30, 2031`]);

    // The same day again, and the next day: nothing new for the commission.
    await sendNotaryExpiryWarnings(deps, new Date('2031-06-01T07:00:00Z'));
    await sendNotaryExpiryWarnings(deps, new Date('2031-06-16T07:00:00Z'));
    const later = await mailTo(notary.email);
    expect(later.map((mail) => mail.subject).sort()).toEqual(['Your notary commission expires on Jun 30, 2031', 'Your surety bond expires on Jul 15, 2031']);
    expect(await adminMail()).toHaveLength(2);
    const recorded = await t.db.select().from(notaryExpiryWarnings).where(eq(notaryExpiryWarnings.notaryId, notary.id));
    expect(recorded.map((row) => `${row.item} ${row.expiresOn}`).sort()).toEqual(['bond 2031-07-15', 'commission 2031-06-30']);

    // A renewed commission has a new expiry date: it is warned about again when that comes near.
    await t.db.update(notaryProfiles).set({ commissionExpiresOn: '2035-06-30' }).where(eq(notaryProfiles.userId, notary.id));
    await sendNotaryExpiryWarnings(deps, new Date('2035-06-10T07:00:00Z'));
    expect((await mailTo(notary.email)).map((mail) => mail.subject)).toContain('Your notary commission expires on Jun 30, 2035');
  });

  it('do not warn a notary who is not approved', async () => {
    const notary = await registerNotary();
    await sendNotaryExpiryWarnings({ db: t.db, publicUrl: 'https://ron.example.test' }, new Date('2031-06-20T07:00:00Z'));
    expect(await t.db.select().from(notaryExpiryWarnings).where(eq(notaryExpiryWarnings.notaryId, notary.id))).toEqual([]);
  });
});
