import { eq } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import type { Db } from '#server/db/client.ts';
import { notaryProfileFiles, notaryProfiles, userSignatures } from '#server/db/schema/index.ts';
import { notaryFileKinds } from '#shared/notary-profile.ts';
import type { TestApp, TestUser, TestUserOptions } from './create-test-app.ts';

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

export interface TestNotaryOptions {
  name: string;
  status: TestUserOptions['status'];
  state: string;
  county: string;
  approvalStatus: 'approved' | 'pending' | 'rejected';
  isActive: boolean;
  commissionExpiresOn: string;
}

/**
 * A notary account with a commission profile (Virginia, approved and active unless told otherwise)
 * (t.headersFor signs it in): what most tests need of "a notary".
 */
export async function createNotary(t: TestApp, options: Partial<TestNotaryOptions> = {}): Promise<TestUser> {
  const user = await t.createUser({
    roles: ['notary'],
    ...(options.name ? { name: options.name } : {}),
    ...(options.status ? { status: options.status } : {}),
  });
  const state = options.state ?? 'VA';
  const approvalStatus = options.approvalStatus ?? 'approved';
  await t.db.insert(notaryProfiles).values({
    userId: user.id,
    commissionState: state,
    commissionNumber: `${state}-${randomUUID().slice(0, 8)}`,
    commissionExpiresOn: options.commissionExpiresOn ?? '2031-06-30',
    county: options.county ?? (state === 'TX' ? 'Travis' : 'Fairfax'),
    approvalStatus,
    approvedAt: approvalStatus === 'approved' ? new Date() : null,
    isActive: options.isActive ?? true,
  });
  return user;
}
