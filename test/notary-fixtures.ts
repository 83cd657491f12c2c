import { eq } from 'drizzle-orm';
import type { Db } from '#server/db/client.ts';
import { notaryProfileFiles, notaryProfiles, userSignatures } from '#server/db/schema/index.ts';
import { notaryFileKinds } from '#shared/notary-profile.ts';

/**
 * Gives a notary everything approval asks for (decision 027): the commission as commissioned with
 * its dates, bond and E&O in force, the four documents on file, a saved signature and initials.
 * The rows point at placeholder storage keys: nothing here is downloaded.
 */
export async function completeNotaryProfile(db: Db, notaryId: string, overrides: Partial<typeof notaryProfiles.$inferInsert> = {}): Promise<void> {
  await db
    .update(notaryProfiles)
    .set({
      commissionedName: 'Nora Q. Notary',
      commissionStartsOn: '2023-07-01',
      bondAmountCents: 1_000_000,
      bondExpiresOn: '2031-06-30',
      eoAmountCents: 2_500_000,
      eoExpiresOn: '2031-06-30',
      ...overrides,
    })
    .where(eq(notaryProfiles.userId, notaryId));
  for (const kind of notaryFileKinds) {
    await db.insert(notaryProfileFiles).values({
      notaryId,
      kind,
      fileName: `${kind}.${kind === 'seal_image' ? 'png' : 'pdf'}`,
      contentType: kind === 'seal_image' ? 'image/png' : 'application/pdf',
      sizeBytes: 1000,
      storageKey: `fixture-${kind}`,
    });
  }
  await db.insert(userSignatures).values([
    { userId: notaryId, kind: 'signature', method: 'type', storageKey: 'fixture-signature' },
    { userId: notaryId, kind: 'initials', method: 'type', storageKey: 'fixture-initials' },
  ]);
}
