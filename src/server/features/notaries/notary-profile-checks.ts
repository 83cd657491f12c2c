import { and, eq } from 'drizzle-orm';
import { getCalendarDay } from '#shared/dates.ts';
import { notaryExpiryWarningDays, type NotaryExpiryItem, type NotaryExpiryWarning, type NotaryFileKind } from '#shared/notary-profile.ts';
import type { DbOrTx } from '#server/db/client.ts';
import type { notaryProfiles } from '#server/db/schema/index.ts';
import { notaryProfileFiles, userSignatures } from '#server/db/schema/index.ts';

type ProfileRow = typeof notaryProfiles.$inferSelect;

const fileSentences: Record<NotaryFileKind, string> = {
  commission_certificate: 'No commission certificate is uploaded.',
  bond: 'No surety bond document is uploaded.',
  eo_insurance: 'No E&O insurance policy is uploaded.',
  seal_image: 'No seal image is uploaded.',
};

/**
 * What an administrator needs before approving, as sentences (decision 027): the commission as
 * commissioned with its dates, a bond and E&O insurance in force, the four documents, the seal
 * image, a saved signature and initials. Empty when the profile is complete.
 */
export async function findMissingProfileItems(db: DbOrTx, profile: ProfileRow, now: Date): Promise<string[]> {
  const today = getCalendarDay(now);
  const missing: string[] = [];
  if (!profile.commissionedName) missing.push('The name as commissioned is missing.');
  if (!profile.commissionStartsOn) missing.push('The commission start date is missing.');
  if (profile.commissionExpiresOn < today) missing.push(`The commission expired on ${profile.commissionExpiresOn}.`);
  if (profile.bondAmountCents === null) missing.push('The surety bond amount is missing.');
  if (!profile.bondExpiresOn) missing.push('The surety bond expiry date is missing.');
  else if (profile.bondExpiresOn < today) missing.push(`The surety bond expired on ${profile.bondExpiresOn}.`);
  if (profile.eoAmountCents === null) missing.push('The E&O insurance amount is missing.');
  if (!profile.eoExpiresOn) missing.push('The E&O insurance expiry date is missing.');
  else if (profile.eoExpiresOn < today) missing.push(`The E&O insurance expired on ${profile.eoExpiresOn}.`);
  const files = await db.select({ kind: notaryProfileFiles.kind }).from(notaryProfileFiles).where(eq(notaryProfileFiles.notaryId, profile.userId));
  const kinds = new Set(files.map((file) => file.kind));
  for (const kind of Object.keys(fileSentences) as NotaryFileKind[]) if (!kinds.has(kind)) missing.push(fileSentences[kind]);
  return [...missing, ...(await findMissingSealItems(db, profile.userId))];
}

/**
 * What an approved notary still needs to seal, as sentences: a saved signature and initials (an
 * administrator may have removed them). The rest of the approval list is behind them; expiries are
 * warnings (findExpiryWarnings).
 */
export async function findMissingSealItems(db: DbOrTx, notaryId: string): Promise<string[]> {
  const saved = await db
    .select({ kind: userSignatures.kind })
    .from(userSignatures)
    .where(and(eq(userSignatures.userId, notaryId), eq(userSignatures.isCurrent, true)));
  const savedKinds = new Set(saved.map((row) => row.kind));
  return [...(savedKinds.has('signature') ? [] : ['No signature is saved.']), ...(savedKinds.has('initials') ? [] : ['No initials are saved.'])];
}

const itemLabels: Record<NotaryExpiryItem, string> = {
  commission: 'Your notary commission',
  certificate: 'Your signing certificate',
  bond: 'Your surety bond',
  eo_insurance: 'Your E&O insurance',
};
export const expiryItemNames: Record<NotaryExpiryItem, string> = {
  commission: 'notary commission',
  certificate: 'uploaded signing certificate',
  bond: 'surety bond',
  eo_insurance: 'E&O insurance',
};

/** Whole days from `today` to `day` (both YYYY-MM-DD). */
export function countDaysUntil(day: string, today: string): number {
  return Math.round((Date.parse(`${day}T00:00:00Z`) - Date.parse(`${today}T00:00:00Z`)) / 86_400_000);
}

/** The dated items of a profile that can expire; the certificate only when the notary uploaded one. */
export function listExpiringItems(profile: ProfileRow, uploadedCertificateExpiresOn: string | null): Array<{ item: NotaryExpiryItem; expiresOn: string }> {
  const items: Array<{ item: NotaryExpiryItem; expiresOn: string | null }> = [
    { item: 'commission', expiresOn: profile.commissionExpiresOn },
    { item: 'certificate', expiresOn: uploadedCertificateExpiresOn },
    { item: 'bond', expiresOn: profile.bondExpiresOn },
    { item: 'eo_insurance', expiresOn: profile.eoExpiresOn },
  ];
  return items.filter((entry): entry is { item: NotaryExpiryItem; expiresOn: string } => entry.expiresOn !== null);
}

/** The profile's banners: every item expired, or expiring within 30 days. */
export function findExpiryWarnings(profile: ProfileRow, uploadedCertificateExpiresOn: string | null, now: Date): NotaryExpiryWarning[] {
  const today = getCalendarDay(now);
  return listExpiringItems(profile, uploadedCertificateExpiresOn).flatMap(({ item, expiresOn }): NotaryExpiryWarning[] => {
    const days = countDaysUntil(expiresOn, today);
    if (days > notaryExpiryWarningDays) return [];
    if (days < 0) return [{ item, expiresOn, isExpired: true, message: `${itemLabels[item]} expired on ${expiresOn}.` }];
    const when = days === 0 ? 'today' : days === 1 ? 'tomorrow' : `in ${days} days`;
    return [{ item, expiresOn, isExpired: false, message: `${itemLabels[item]} expires ${when}, on ${expiresOn}. Renew it and update your profile.` }];
  });
}
