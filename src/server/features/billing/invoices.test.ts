import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { and, desc, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { describeAuditEvent } from '#shared/audit-sentences.ts';
import type { Role } from '#shared/roles.ts';
import { auditEvents, invoices, jobCharges, jobs } from '#server/db/schema/index.ts';
import { createCompanyKit, type TestCompany } from '#test/company-fixtures.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, uniqueEmail } from '#test/job-fixtures.ts';

let t: TestApp;
let kit: ReturnType<typeof createCompanyKit>;
const people = {} as Record<'admin' | 'finance' | 'billing' | 'notary' | 'signer' | 'observer' | 'witness', TestUser>;
let acme: TestCompany;
let bayside: TestCompany;

beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createCompanyKit(t);
  for (const role of ['admin', 'finance', 'billing', 'notary', 'signer', 'observer', 'witness'] as const) {
    people[role] = await t.createUser({ roles: [role as Role], name: `${role} person` });
  }
  acme = await kit.createCompany({ name: 'Acme Title' });
  bayside = await kit.createCompany({ name: 'Bayside Escrow' });
});
afterAll(async () => t?.close());
beforeEach(async () => {
  await t.db.delete(jobCharges);
  await t.db.delete(invoices);
});

interface Line {
  key: string;
  feeKind: 'notarial' | 'platform';
  quantity: number;
  unitAmountCents: number;
}
const seal: Line = { key: 'first_seal', feeKind: 'notarial', quantity: 2, unitAmountCents: 2500 };
const platform: Line = { key: 'platform', feeKind: 'platform', quantity: 1, unitAmountCents: 1000 };

/** A completed job of the company charged these lines at `chargedAt` (what recordJobCharges writes at completion). */
async function chargedJob(companyId: string | null, chargedAt: Date, lines: Line[] = [seal, platform], title = 'Refinance closing') {
  const [job] = await t.db.insert(jobs).values({ title, notarizationType: 'ron', status: 'completed', companyId }).returning();
  await t.db.insert(jobCharges).values(
    lines.map((line, position) => ({
      jobId: job!.id,
      companyId,
      key: line.key,
      label: line.key === 'first_seal' ? 'Notarial act' : 'Platform fee',
      unit: line.key === 'first_seal' ? ('act' as const) : ('job' as const),
      feeKind: line.feeKind,
      quantity: line.quantity,
      unitAmountCents: line.unitAmountCents,
      amountCents: line.quantity * line.unitAmountCents,
      priceSource: 'default' as const,
      position,
      createdAt: chargedAt,
    })),
  );
  return job!.id;
}

const november = (day: number) => new Date(Date.UTC(2026, 10, day, 15));
const generate = (user: TestUser, period = '2026-11') => kit.call(user, 'POST', '/api/billing/invoices/generate', { period });
const draftOf = async (companyId: string) =>
  (
    await t.db
      .select()
      .from(invoices)
      .where(and(eq(invoices.companyId, companyId), eq(invoices.status, 'draft')))
  )[0];
const lastAudit = async (action: string) =>
  (await t.db.select().from(auditEvents).where(eq(auditEvents.action, action)).orderBy(desc(auditEvents.sequence)).limit(1))[0];

/** Every invoice's totals equal the sums of the lines on it, in integer cents. */
async function expectTotalsAreSums() {
  for (const invoice of await t.db.select().from(invoices)) {
    const lines = await t.db.select().from(jobCharges).where(eq(jobCharges.invoiceId, invoice.id));
    const sum = (kind: string) => lines.filter((line) => line.feeKind === kind).reduce((total, line) => total + line.amountCents, 0);
    if (invoice.status === 'void') continue;
    expect(invoice.notarialFeeCents).toBe(sum('notarial'));
    expect(invoice.platformFeeCents).toBe(sum('platform'));
    expect(invoice.totalCents).toBe(sum('notarial') + sum('platform'));
    expect(invoice.jobCount).toBe(new Set(lines.map((line) => line.jobId)).size);
  }
}

describe('drafts', () => {
  it('gather a month’s charges per company, once, with totals that are the sums of their lines', async () => {
    await chargedJob(acme.id, november(2));
    await chargedJob(acme.id, november(29), [seal]);
    await chargedJob(bayside.id, november(10), [platform]);
    await chargedJob(acme.id, new Date(Date.UTC(2026, 11, 1, 0, 0, 1)));
    await chargedJob(null, november(3));
    const first = await kit.expectStatus(generate(people.billing), 200);
    expect(first.json()).toEqual({ ok: true, message: '4 charges went onto the drafts of 2 companies.', period: '2026-11', companies: 2, charges: 4 });
    expect(await draftOf(acme.id)).toMatchObject({
      periodStart: '2026-11-01',
      jobCount: 2,
      notarialFeeCents: 10000,
      platformFeeCents: 1000,
      totalCents: 11000,
    });
    expect(await draftOf(bayside.id)).toMatchObject({ jobCount: 1, totalCents: 1000 });
    const again = await kit.expectStatus(generate(people.finance), 200);
    expect(again.json()).toMatchObject({ charges: 0, message: 'Every charge of that month is already on an invoice.' });
    expect(await t.db.select().from(invoices)).toHaveLength(2);
    await expectTotalsAreSums();
    expect((await lastAudit('invoice.generated'))?.data).toEqual({ period: '2026-11', companies: 0, charges: 0 });
  });

  it('refuses a period that is not a month, and anyone but billing staff', async () => {
    for (const period of ['2026-13', '2026-1', 'November', '1999-12', '2026-11\u0000']) {
      const res = await generate(people.billing, period);
      expect(res.statusCode, period).toBe(400);
      expect(res.json().message).toMatch(/month/);
    }
    for (const role of ['signer', 'notary', 'observer', 'witness'] as const) expect((await generate(people[role])).statusCode).toBe(403);
    expect((await generate(acme.staff)).statusCode).toBe(403);
    expect((await generate(acme.agent)).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'POST', url: '/api/billing/invoices/generate', payload: { period: '2026-11' } })).statusCode).toBe(401);
  });
});

describe('an invoice’s life', () => {
  it('is issued with a number, a due date and the company as it was; paid by finance; each step on record', async () => {
    const jobId = await chargedJob(acme.id, november(5));
    await generate(people.billing);
    const draft = (await draftOf(acme.id))!;
    const shown = await kit.expectStatus(kit.call(people.billing, 'GET', `/api/billing/invoices/${draft.id}`), 200);
    expect(shown.json()).toMatchObject({
      status: 'draft',
      number: null,
      companyName: 'Acme Title',
      period: '2026-11',
      totalCents: 6000,
      canIssue: true,
      canMarkPaid: false,
      canVoid: false,
      jobs: [
        {
          jobId,
          title: 'Refinance closing',
          totalCents: 6000,
          lines: [{ label: 'Notarial act', quantity: 2, unitAmountCents: 2500, amountCents: 5000 }, { amountCents: 1000 }],
        },
      ],
    });
    const issued = await kit.expectStatus(kit.call(people.billing, 'POST', `/api/billing/invoices/${draft.id}/issue`), 200);
    const year = new Date().getUTCFullYear();
    expect(issued.json()).toMatchObject({ status: 'issued', number: `${year}-000001`, issuedByName: 'billing person', canIssue: false, canMarkPaid: false });
    const { issuedAt, dueAt } = issued.json();
    expect(new Date(dueAt).getTime() - new Date(issuedAt).getTime()).toBe(30 * 24 * 3600 * 1000);
    expect(issued.json().billedTo).toMatchObject({ name: 'Acme Title', city: 'Richmond', state: 'VA' });
    expect((await kit.call(people.billing, 'POST', `/api/billing/invoices/${draft.id}/issue`)).statusCode).toBe(409);
    // Billing issues; only finance and administrators record the payment.
    expect((await kit.call(people.billing, 'POST', `/api/billing/invoices/${draft.id}/pay`, {})).statusCode).toBe(403);
    const paid = await kit.expectStatus(kit.call(people.finance, 'POST', `/api/billing/invoices/${draft.id}/pay`, { reference: 'Check 1042' }), 200);
    expect(paid.json()).toMatchObject({ status: 'paid', paidByName: 'finance person', paymentReference: 'Check 1042', canVoid: false });
    expect((await kit.call(people.finance, 'POST', `/api/billing/invoices/${draft.id}/pay`, {})).json().message).toBe('This invoice is already paid.');
    expect((await kit.call(people.admin, 'POST', `/api/billing/invoices/${draft.id}/void`, { reason: 'Wrong month' })).json().message).toBe(
      'A paid invoice cannot be voided.',
    );
    const issuedEvent = await lastAudit('invoice.issued');
    expect(issuedEvent).toMatchObject({ actorId: people.billing.id, data: { number: `${year}-000001`, companyName: 'Acme Title', totalCents: 6000 } });
    expect(await lastAudit('invoice.paid')).toMatchObject({ actorId: people.finance.id, data: { reference: 'Check 1042' } });
  });

  it('is voided with a reason, and its charges go back on a draft of the month, to be invoiced again', async () => {
    await chargedJob(acme.id, november(6));
    await generate(people.billing);
    const draft = (await draftOf(acme.id))!;
    await kit.expectStatus(kit.call(people.finance, 'POST', `/api/billing/invoices/${draft.id}/issue`), 200);
    // Later charges of the month open a new draft beside the issued invoice.
    await chargedJob(acme.id, november(20), [platform]);
    await generate(people.billing);
    expect((await draftOf(acme.id))?.totalCents).toBe(1000);
    for (const reason of ['', 'no', 'x'.repeat(501), 'bad\u0000reason']) {
      const res = await kit.call(people.finance, 'POST', `/api/billing/invoices/${draft.id}/void`, { reason });
      expect(res.statusCode, reason.slice(0, 10)).toBe(400);
    }
    expect((await kit.call(people.billing, 'POST', `/api/billing/invoices/${draft.id}/void`, { reason: 'Billed twice' })).statusCode).toBe(403);
    const voided = await kit.expectStatus(kit.call(people.finance, 'POST', `/api/billing/invoices/${draft.id}/void`, { reason: 'Billed twice' }), 200);
    expect(voided.json()).toMatchObject({ status: 'void', voidReason: 'Billed twice', voidedByName: 'finance person', jobs: [] });
    expect((await draftOf(acme.id))?.totalCents).toBe(7000);
    await expectTotalsAreSums();
    expect(await lastAudit('invoice.voided')).toMatchObject({ actorId: people.finance.id, data: { reason: 'Billed twice', companyName: 'Acme Title' } });
    expect((await kit.call(people.finance, 'POST', `/api/billing/invoices/${draft.id}/void`, { reason: 'Again' })).statusCode).toBe(409);
    // A draft is not voided: it is issued when ready.
    const newDraft = (await draftOf(acme.id))!;
    expect((await kit.call(people.finance, 'POST', `/api/billing/invoices/${newDraft.id}/void`, { reason: 'Not yet' })).statusCode).toBe(409);
    expect((await kit.call(people.finance, 'POST', `/api/billing/invoices/${newDraft.id}/pay`, {})).json().message).toBe(
      'Issue this draft before marking it paid.',
    );
  });

  it('gives two invoices issued at the same moment two numbers, and records one payment of two at once', async () => {
    await chargedJob(acme.id, november(7));
    await chargedJob(bayside.id, november(7));
    await generate(people.billing);
    const drafts = await t.db.select().from(invoices);
    const issued = await Promise.all(drafts.map((draft) => kit.call(people.billing, 'POST', `/api/billing/invoices/${draft.id}/issue`)));
    expect(issued.map((res) => res.statusCode)).toEqual([200, 200]);
    expect(new Set(issued.map((res) => res.json().number)).size).toBe(2);
    const id = drafts[0]!.id;
    const payments = await Promise.all([
      kit.call(people.finance, 'POST', `/api/billing/invoices/${id}/pay`, { reference: 'A' }),
      kit.call(people.admin, 'POST', `/api/billing/invoices/${id}/pay`, { reference: 'B' }),
    ]);
    expect(payments.map((res) => res.statusCode).sort()).toEqual([200, 409]);
    expect(
      (
        await t.db
          .select()
          .from(auditEvents)
          .where(and(eq(auditEvents.action, 'invoice.paid')))
      ).filter((event) => (event.data as { invoiceId?: string } | null)?.invoiceId === id),
    ).toHaveLength(1);
  });
});

describe('who sees what', () => {
  it('shows a company’s title staff their own issued invoices, never drafts nor another company’s; agents and others nothing', async () => {
    await chargedJob(acme.id, november(8));
    await chargedJob(bayside.id, november(8));
    await generate(people.billing);
    const acmeDraft = (await draftOf(acme.id))!;
    const baysideDraft = (await draftOf(bayside.id))!;
    expect((await kit.call(acme.staff, 'GET', `/api/billing/invoices/${acmeDraft.id}`)).statusCode).toBe(404);
    expect((await kit.call(acme.staff, 'GET', `/api/billing/companies/${acme.id}/invoices`)).json()).toMatchObject({ count: 0, items: [] });
    await kit.expectStatus(kit.call(people.billing, 'POST', `/api/billing/invoices/${acmeDraft.id}/issue`), 200);
    await kit.expectStatus(kit.call(people.billing, 'POST', `/api/billing/invoices/${baysideDraft.id}/issue`), 200);
    const own = await kit.expectStatus(kit.call(acme.staff, 'GET', `/api/billing/companies/${acme.id}/invoices`), 200);
    expect(own.json()).toMatchObject({
      company: { id: acme.id, name: 'Acme Title' },
      count: 1,
      owedCents: 6000,
      items: [{ id: acmeDraft.id, status: 'issued' }],
    });
    expect((await kit.call(acme.staff, 'GET', `/api/billing/invoices/${acmeDraft.id}`)).json()).toMatchObject({
      canIssue: false,
      canMarkPaid: false,
      canVoid: false,
    });
    expect((await kit.call(acme.staff, 'GET', `/api/billing/invoices/${acmeDraft.id}/pdf`)).statusCode).toBe(200);
    expect((await kit.call(acme.staff, 'GET', '/api/billing/company')).json()).toEqual({ companies: [{ id: acme.id, name: 'Acme Title' }] });
    // Another company's, by id: as if it did not exist.
    for (const url of [
      `/api/billing/invoices/${baysideDraft.id}`,
      `/api/billing/invoices/${baysideDraft.id}/pdf`,
      `/api/billing/invoices/${baysideDraft.id}/csv`,
    ]) {
      expect((await kit.call(acme.staff, 'GET', url)).statusCode, url).toBe(404);
    }
    expect((await kit.call(acme.staff, 'GET', `/api/billing/companies/${bayside.id}/invoices`)).statusCode).toBe(404);
    for (const url of ['/api/billing/invoices', `/api/billing/invoices/${acmeDraft.id}/issue`]) {
      expect((await kit.call(acme.staff, url.endsWith('issue') ? 'POST' : 'GET', url)).statusCode, url).toBe(403);
    }
    // Observers, witnesses, signers and notaries see no prices; nor do agents, while their company does not let them.
    const billingUrls = [
      '/api/billing/invoices',
      `/api/billing/invoices/${acmeDraft.id}`,
      `/api/billing/companies/${acme.id}/invoices`,
      `/api/billing/invoices/${acmeDraft.id}/pdf`,
    ];
    for (const person of [acme.agent, people.observer, people.witness, people.signer, people.notary]) {
      for (const url of billingUrls) {
        const expected = person === acme.agent && url !== '/api/billing/invoices' ? 404 : 403;
        expect((await kit.call(person, 'GET', url)).statusCode, url).toBe(expected);
      }
    }
    expect((await kit.call(acme.agent, 'GET', '/api/billing/company')).json()).toEqual({ companies: [] });
    // Its title staff let the agents see prices: from then on they read the company's invoices, never another's.
    expect((await kit.call(acme.agent, 'PUT', `/api/title-companies/${acme.id}`, { agentsSeePrices: true })).statusCode).toBe(403);
    const allowed = await kit.expectStatus(kit.call(acme.staff, 'PUT', `/api/title-companies/${acme.id}`, { agentsSeePrices: true }), 200);
    expect(allowed.json().agentsSeePrices).toBe(true);
    try {
      expect((await kit.call(acme.agent, 'GET', `/api/billing/invoices/${acmeDraft.id}`)).json()).toMatchObject({ status: 'issued', canMarkPaid: false });
      expect((await kit.call(acme.agent, 'GET', '/api/billing/company')).json()).toEqual({ companies: [{ id: acme.id, name: 'Acme Title' }] });
      expect((await kit.call(acme.agent, 'GET', `/api/billing/invoices/${baysideDraft.id}`)).statusCode).toBe(404);
      expect((await kit.call(bayside.agent, 'GET', `/api/billing/invoices/${baysideDraft.id}`)).statusCode).toBe(404);
      expect((await kit.call(acme.agent, 'POST', `/api/billing/invoices/${acmeDraft.id}/pay`, {})).statusCode).toBe(403);
    } finally {
      await kit.expectStatus(kit.call(acme.staff, 'PUT', `/api/title-companies/${acme.id}`, { agentsSeePrices: false }), 200);
    }
    expect((await kit.call(acme.agent, 'GET', `/api/billing/invoices/${acmeDraft.id}`)).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/api/billing/invoices' })).statusCode).toBe(401);
  });

  it('lists invoices for billing staff by status, overdue and search, with the count and amount of all that match', async () => {
    for (let day = 1; day <= 3; day += 1) await chargedJob(acme.id, november(day));
    await chargedJob(bayside.id, november(4), [platform]);
    await generate(people.billing);
    const acmeDraft = (await draftOf(acme.id))!;
    const baysideDraft = (await draftOf(bayside.id))!;
    expect((await kit.call(people.billing, 'GET', '/api/billing/invoices?status=draft')).json()).toMatchObject({ count: 2, totalCents: 19000 });
    await kit.expectStatus(kit.call(people.billing, 'POST', `/api/billing/invoices/${acmeDraft.id}/issue`), 200);
    await kit.expectStatus(kit.call(people.billing, 'POST', `/api/billing/invoices/${baysideDraft.id}/issue`), 200);
    await t.db
      .update(invoices)
      .set({ dueAt: new Date(Date.now() - 86_400_000) })
      .where(eq(invoices.id, baysideDraft.id));
    const overdue = (await kit.call(people.finance, 'GET', '/api/billing/invoices?status=overdue')).json();
    expect(overdue).toMatchObject({ count: 1, totalCents: 1000, items: [{ id: baysideDraft.id, isOverdue: true, companyName: 'Bayside Escrow' }] });
    expect((await kit.call(people.billing, 'GET', '/api/billing/invoices?status=issued')).json()).toMatchObject({ count: 2, totalCents: 19000 });
    expect((await kit.call(people.billing, 'GET', '/api/billing/invoices?q=acme')).json()).toMatchObject({ count: 1, items: [{ companyName: 'Acme Title' }] });
    expect((await kit.call(people.billing, 'GET', '/api/billing/invoices?q=100%25_')).json()).toMatchObject({ count: 0 });
    for (const query of ['status=late', 'page=0', 'page=x', `q=${'a'.repeat(201)}`, 'q=%00']) {
      const res = await kit.call(people.billing, 'GET', `/api/billing/invoices?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(typeof res.json().message).toBe('string');
    }
    expect((await kit.call(people.billing, 'GET', '/api/billing/invoices/not-a-uuid')).statusCode).toBe(400);
    expect((await kit.call(people.billing, 'GET', '/api/billing/invoices/00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
  });
});

describe('the files', () => {
  it('prints the PDF with the number, the company, each job and the totals, and a CSV a spreadsheet cannot run', async () => {
    const hostile = await chargedJob(acme.id, november(9), [seal, platform], '=HYPERLINK("http://evil.test","Click")');
    await chargedJob(acme.id, november(10), [platform], 'Purchase, “Nguyễn” estate');
    await generate(people.billing);
    const draft = (await draftOf(acme.id))!;
    const issued = (await kit.expectStatus(kit.call(people.billing, 'POST', `/api/billing/invoices/${draft.id}/issue`), 200)).json();
    const pdf = await kit.expectStatus(kit.call(people.finance, 'GET', `/api/billing/invoices/${draft.id}/pdf`), 200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.headers['content-disposition']).toBe(`attachment; filename="invoice-${issued.number}.pdf"`);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'invoice-'));
    fs.writeFileSync(path.join(dir, 'invoice.pdf'), pdf.rawPayload);
    const text = execFileSync('pdftotext', ['-layout', path.join(dir, 'invoice.pdf'), '-'], { encoding: 'utf8' });
    fs.rmSync(dir, { recursive: true, force: true });
    for (const expected of [`Invoice ${issued.number}`, 'Acme Title', 'November 2026', 'Nguyễn', '$70.00', '$50.00', '$20.00', 'Status: Issued']) {
      expect(text, expected).toContain(expected);
    }
    const csv = await kit.expectStatus(kit.call(acme.staff, 'GET', `/api/billing/invoices/${draft.id}/csv`), 200);
    const rows = csv.body.trim().split('\r\n');
    expect(rows[0]).toBe('invoice_number,company,period,status,job_id,job_title,completed_on,item,fee_kind,unit,quantity,unit_amount_cents,amount_cents');
    expect(rows).toHaveLength(4);
    expect(rows[1]).toContain(`,${hostile},"'=HYPERLINK(""http://evil.test"",""Click"")",`);
    expect(rows.slice(1).reduce((sum, row) => sum + Number(row.split(',').at(-1)), 0)).toBe(issued.totalCents);
  });
});

describe('a completing job', () => {
  it('puts its charges on its company’s draft at once', async () => {
    const { recordJobCharges } = await import('#server/features/pricing/job-charges.service.ts');
    const { priceItems } = await import('#server/db/schema/index.ts');
    await t.db.delete(priceItems);
    await t.db.insert(priceItems).values({ key: 'platform', label: 'Platform fee', amountCents: 1200, unit: 'job', feeKind: 'platform', position: 0 });
    const [job] = await t.db.insert(jobs).values({ title: 'Completing now', notarizationType: 'ron', status: 'completed', companyId: acme.id }).returning();
    await t.db.transaction((tx) => recordJobCharges({ db: tx, user: null, ipAddress: '127.0.0.1', userAgent: null }, job!, 1));
    const draft = await draftOf(acme.id);
    expect(draft).toMatchObject({ totalCents: 1200, jobCount: 1 });
    expect(
      (
        await t.db
          .select()
          .from(jobCharges)
          .where(inArray(jobCharges.jobId, [job!.id]))
      )[0]?.invoiceId,
    ).toBe(draft?.id);
    await t.db.delete(priceItems);
  });
});

describe('a job that completes while a no-show price is set', () => {
  it('is charged its prices but never the no-show price: that one is for a missed session only', async () => {
    const { recordJobCharges } = await import('#server/features/pricing/job-charges.service.ts');
    const { priceItems } = await import('#server/db/schema/index.ts');
    await t.db.delete(priceItems);
    await t.db.insert(priceItems).values([
      { key: 'no_show', label: 'No-show fee', amountCents: 3500, unit: 'job', feeKind: 'platform', position: 0 },
      { key: 'platform', label: 'Platform fee', amountCents: 1000, unit: 'job', feeKind: 'platform', position: 1 },
    ]);
    const [job] = await t.db
      .insert(jobs)
      .values({ title: 'Completed as booked', notarizationType: 'ron', status: 'completed', companyId: acme.id })
      .returning();
    const items = await t.db.transaction((tx) => recordJobCharges({ db: tx, user: null, ipAddress: '127.0.0.1', userAgent: null }, job!, 1));
    expect(items.map((item) => [item.key, item.amountCents])).toEqual([['platform', 1000]]);
    expect(await draftOf(acme.id)).toMatchObject({ totalCents: 1000, jobCount: 1 });
    await t.db.delete(priceItems);
  });
});

describe('a no-show', () => {
  it('charges the no-show price once when a waiting job is cancelled as a no-show, onto the company’s draft; a plain cancellation charges nothing', async () => {
    const jobKit = createJobKit(t);
    const { priceItems } = await import('#server/db/schema/index.ts');
    await t.db.delete(priceItems);
    await t.db.insert(priceItems).values([
      { key: 'no_show', label: 'No-show fee', amountCents: 3500, unit: 'job', feeKind: 'platform', position: 0 },
      { key: 'platform', label: 'Platform fee', amountCents: 1000, unit: 'job', feeKind: 'platform', position: 1 },
    ]);
    const waitingJob = async () => {
      const job = await jobKit.createJob(acme.staff, { signers: [{ name: 'Sam Signer', email: uniqueEmail('sam') }] });
      await jobKit.uploadPdf(acme.staff, job.id);
      return jobKit.moveJob(acme.staff, job.id, ['ready']);
    };
    const plain = await waitingJob();
    await kit.expectStatus(kit.call(acme.staff, 'PATCH', `/api/jobs/${plain.id}`, { status: 'cancelled', version: plain.version }), 200);
    expect(await t.db.select().from(jobCharges).where(eq(jobCharges.jobId, plain.id))).toEqual([]);

    const missed = await waitingJob();
    const refused = await kit.call(acme.staff, 'PATCH', `/api/jobs/${missed.id}`, { noShow: true, version: missed.version });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toBe('Only a cancellation can be a no-show.');
    await kit.expectStatus(kit.call(acme.staff, 'PATCH', `/api/jobs/${missed.id}`, { status: 'cancelled', noShow: true, version: missed.version }), 200);
    const lines = await t.db.select().from(jobCharges).where(eq(jobCharges.jobId, missed.id));
    expect(lines).toMatchObject([{ key: 'no_show', label: 'No-show fee', quantity: 1, unitAmountCents: 3500, amountCents: 3500, feeKind: 'platform' }]);
    expect(await draftOf(acme.id)).toMatchObject({ totalCents: 3500, jobCount: 1 });
    const charges = (await kit.call(acme.staff, 'GET', `/api/jobs/${missed.id}/charges`)).json();
    expect(charges).toMatchObject({ totalCents: 3500, items: [{ key: 'no_show' }] });
    const trail = (await kit.call(people.admin, 'GET', `/api/jobs/${missed.id}/audit`)).json() as { events: Array<{ action: string; data: unknown }> };
    expect(trail.events.filter((event) => event.action === 'job.status_changed').map((event) => event.data)).toContainEqual(
      expect.objectContaining({ to: 'cancelled', noShow: true }),
    );
    expect(describeAuditEvent({ action: 'job.status_changed', actorName: 'Tess Title', data: { from: 'ready', to: 'cancelled', noShow: true } })).toBe(
      'Tess Title cancelled the job as a no-show: nobody came to the session.',
    );
    // A draft cannot be a no-show: nobody was waited for.
    const draft = await jobKit.createJob(acme.staff, {});
    const early = await kit.call(acme.staff, 'PATCH', `/api/jobs/${draft.id}`, { status: 'cancelled', noShow: true, version: draft.version });
    expect(early.statusCode).toBe(409);
    expect(early.json().message).toBe('Only a job waiting for its session can be cancelled as a no-show.');
    expect(await t.db.select().from(jobCharges).where(eq(jobCharges.jobId, draft.id))).toEqual([]);
    await t.db.delete(priceItems);
  });
});
