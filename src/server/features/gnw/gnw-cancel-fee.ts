import type { DbOrTx } from '#server/db/client.ts';
import type { sessionBookings } from '#server/db/schema/index.ts';
import { effectivePrices, noShowPriceKey } from '#server/features/pricing/pricing.service.ts';
import { bookingLeadMinutes } from './gnw-slots.ts';

type BookingRow = Pick<typeof sessionBookings.$inferSelect, 'startsAt'>;

/**
 * What cancelling costs now (decision 051): nothing, unless the booked time has passed or is less
 * than 15 minutes away; then the no-show price of the job's prices (the defaults for a job of no
 * company), when they have one. `isLate` says the time rule applies, whatever the price.
 */
export async function findCancelFee(
  db: DbOrTx,
  job: { companyId: string | null },
  booking: BookingRow | null,
  now: Date,
): Promise<{ feeCents: number; isLate: boolean }> {
  const isLate = booking !== null && booking.startsAt.getTime() - now.getTime() <= bookingLeadMinutes * 60_000;
  if (!isLate) return { feeCents: 0, isLate };
  const prices = await effectivePrices(db, job.companyId);
  return { feeCents: prices.find((price) => price.key === noShowPriceKey)?.amountCents ?? 0, isLate };
}
