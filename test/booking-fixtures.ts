import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { availabilitySlots, emailOutbox, instantOffers, instantRequests, priceItems } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from './create-test-app.ts';
import { createJobKit } from './job-fixtures.ts';
import { createNotary, type TestNotaryOptions } from './notary-fixtures.ts';
import { paymentPrices } from './payment-fixtures.ts';
import { startStripeStandIn, stripeStandInEnv, type StripeStandIn } from './stripe-stand-in.ts';

/** The no-show price of the booking tests: a late cancel costs this much. */
export const noShowPrice = { key: 'no_show', label: 'No-show fee', amountCents: 2500, unit: 'job', feeKind: 'platform' } as const;

const minuteMs = 60_000;

/** The next whole hour at least `hoursAhead` hours from now, so every piece of a slot lands on :00 or :30. */
export function wholeHourAhead(hoursAhead: number, from = new Date()): Date {
  const date = new Date(from.getTime() + hoursAhead * 60 * minuteMs);
  date.setUTCMinutes(0, 0, 0);
  return new Date(date.getTime() + 60 * minuteMs);
}

export const addMinutes = (date: Date, minutes: number) => new Date(date.getTime() + minutes * minuteMs);

/**
 * Notarize Now requests (decision 051) over the real API of one test app: the person's own job (them
 * as its signer, one PDF), its instant_requests row as the wizard leaves it, the estimate held on the
 * test card (Stripe stand-in), and notaries with availability slots.
 */
export function createBookingKit(t: TestApp) {
  const jobs = createJobKit(t);

  async function usePrices(options: { withNoShow?: boolean } = {}) {
    const rows = [...paymentPrices, ...(options.withNoShow === false ? [] : [noShowPrice])];
    await t.db.insert(priceItems).values(rows.map((price, position) => ({ ...price, companyId: null, position })));
  }

  async function createPerson(name = 'Sam Signer'): Promise<TestUser> {
    return t.createUser({ roles: ['signer'], name });
  }

  /** A notary (approved, active, Virginia) with these availability slots. */
  async function createNotaryWithSlots(slots: Array<[Date, Date]>, options: Partial<TestNotaryOptions> = {}): Promise<TestUser> {
    const notary = await createNotary(t, options);
    await addSlots(notary, slots);
    return notary;
  }

  async function addSlots(notary: TestUser, slots: Array<[Date, Date]>) {
    if (slots.length === 0) return;
    await t.db.insert(availabilitySlots).values(slots.map(([startsAt, endsAt]) => ({ notaryId: notary.id, startsAt, endsAt, timeZone: 'America/New_York' })));
  }

  /** The person's request in a status and lane, with the card hold unless told otherwise; its job id. */
  async function createRequest(
    person: TestUser,
    options: { status?: 'setup' | 'searching' | 'unmatched' | 'matched'; lane?: 'instant' | 'scheduled'; isHeld?: boolean } = {},
  ): Promise<string> {
    const job = await jobs.createJob(person, { title: 'Power of attorney', signers: [{ name: person.name, email: person.email }] });
    await jobs.uploadPdf(person, job.id);
    await t.db.insert(instantRequests).values({
      jobId: job.id,
      requestedBy: person.id,
      lane: options.lane ?? 'scheduled',
      status: options.status ?? 'setup',
      step: 'notary',
      timeZone: 'America/Chicago',
      signerState: 'TX',
    });
    if (options.isHeld !== false) {
      const res = await jobs.call(person, 'POST', `/api/jobs/${job.id}/payment/hold`, { paymentMethod: 'pm_card_visa' });
      expect(res.statusCode, res.body).toBe(201);
    }
    return job.id;
  }

  /** An offer of the request ringing at a notary (as the instant loop would have made it). */
  async function addOpenOffer(jobId: string, notary: TestUser) {
    const [request] = await t.db.select().from(instantRequests).where(eq(instantRequests.jobId, jobId));
    if (!request) throw new Error('no request for that job');
    const [offer] = await t.db
      .insert(instantOffers)
      .values({ requestId: request.id, userId: notary.id, expiresAt: addMinutes(new Date(), 1) })
      .returning();
    return offer!;
  }

  const book = (person: TestUser, body: Record<string, unknown>) =>
    jobs.call(person, 'POST', '/api/gnw/schedule/book', { timeZone: 'America/Chicago', ...body });
  const slots = (person: TestUser, body: Record<string, unknown> = {}) =>
    jobs.call(person, 'POST', '/api/gnw/schedule/slots', { timeZone: 'America/Chicago', ...body });
  const cancel = (person: TestUser, body: Record<string, unknown>) => jobs.call(person, 'POST', '/api/gnw/cancel', body);
  const switchToScheduled = (person: TestUser, jobId: string) => jobs.call(person, 'POST', '/api/gnw/switch-to-scheduled', { jobId });

  /** The mail queued to an address, oldest first. */
  const mailTo = (address: string) => t.db.select().from(emailOutbox).where(eq(emailOutbox.toAddress, address.toLowerCase())).orderBy(emailOutbox.createdAt);

  return { jobs, usePrices, createPerson, createNotaryWithSlots, addSlots, createRequest, addOpenOffer, book, slots, cancel, switchToScheduled, mailTo };
}

export type BookingKit = ReturnType<typeof createBookingKit>;

export interface StripeBookingApp {
  t: TestApp;
  stripe: StripeStandIn;
  kit: BookingKit;
}

/** A test app whose payment provider is the Stripe stand-in, with the booking prices set: for a file's beforeAll. */
export async function startStripeBookingApp(): Promise<StripeBookingApp> {
  const stripe = await startStripeStandIn();
  const t = await createTestApp(stripeStandInEnv(stripe, { LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' }));
  const kit = createBookingKit(t);
  await kit.usePrices();
  return { t, stripe, kit };
}

/** Closes what startStripeBookingApp started (either may be missing when the start failed). */
export async function closeStripeBookingApp(app: Partial<Pick<StripeBookingApp, 't' | 'stripe'>>): Promise<void> {
  await app.t?.close();
  await app.stripe?.close();
}
