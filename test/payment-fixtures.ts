import { and, asc, eq, like } from 'drizzle-orm';
import { expect } from 'vitest';
import { describeAuditEvent } from '#shared/audit-sentences.ts';
import { auditEvents, payments, priceItems, users } from '#server/db/schema/index.ts';
import { createCompanyKit, type TestCompany } from './company-fixtures.ts';
import type { TestApp, TestUser } from './create-test-app.ts';
import { createJobKit, uniqueEmail } from './job-fixtures.ts';

/**
 * The prices of the payment tests: with one signer and one signing document a job is estimated at
 * $39.00 at booking (as if its output were a notarial act) and, sealed without a recording (not a
 * notarial act, so no notarial fee), charged $14.00 at completion.
 */
export const paymentPrices = [
  { key: 'first_seal', label: 'Notarial act', amountCents: 2500, unit: 'act', feeKind: 'notarial' },
  { key: 'platform', label: 'Platform fee', amountCents: 1000, unit: 'job', feeKind: 'platform' },
  { key: 'identity_check', label: 'Identity check', amountCents: 400, unit: 'signer', feeKind: 'platform' },
] as const;

/** A title company with its staff, a notary, the prices above, and jobs booked, completed and cancelled through the real API. */
export async function createPaymentKit(t: TestApp) {
  const jobs = createJobKit(t);
  const companies = createCompanyKit(t);
  const notary = await jobs.createNotary({ name: 'Nora Notary' });
  const company = await companies.createCompany({ name: 'Acme Title' });
  await t.db.insert(priceItems).values(paymentPrices.map((price, position) => ({ ...price, companyId: null, position })));

  /** A job of the company with one signer and one signing document, booked by its title staff. */
  async function bookJob(creator: TestUser = company.staff, options: { companyJob?: boolean } = {}) {
    const job = await jobs.createJob(creator, { notaryId: notary.id, signers: [{ name: 'Sam Signer', email: uniqueEmail('signer') }] });
    if (options.companyJob !== false) expect(job.companyId).toBe(company.id);
    await jobs.uploadPdf(creator, job.id);
    return job;
  }

  const hold = (user: TestUser, jobId: string, body: Record<string, unknown> = { paymentMethod: 'pm_card_visa' }) =>
    jobs.call(user, 'POST', `/api/jobs/${jobId}/payment/hold`, body);
  const paymentOf = (user: TestUser, jobId: string) => jobs.call(user, 'GET', `/api/jobs/${jobId}/payment`);

  /** The notary starts the session and seals the job (no recording: not a notarial act). */
  async function completeJob(jobId: string) {
    await jobs.moveJob(notary, jobId, ['ready', 'in_session']);
    return jobs.sealJob(notary, jobId);
  }

  async function cancelJob(user: TestUser, jobId: string) {
    return jobs.moveJob(user, jobId, ['cancelled']);
  }

  const rowsOf = (jobId: string) => t.db.select().from(payments).where(eq(payments.jobId, jobId)).orderBy(asc(payments.createdAt));

  /** The payment events of a job's trail, as the sentences people read. */
  async function paymentSentences(jobId: string): Promise<string[]> {
    const rows = await t.db
      .select({ event: auditEvents, actorName: users.name })
      .from(auditEvents)
      .leftJoin(users, eq(users.id, auditEvents.actorId))
      .where(and(eq(auditEvents.jobId, jobId), like(auditEvents.action, 'payment.%')))
      .orderBy(asc(auditEvents.sequence));
    return rows.map(({ event, actorName }) =>
      describeAuditEvent({ action: event.action, actorName, actorId: event.actorId, data: (event.data ?? {}) as Record<string, unknown> }),
    );
  }

  return { jobs, companies, notary, company: company as TestCompany, bookJob, hold, paymentOf, completeJob, cancelJob, rowsOf, paymentSentences };
}
