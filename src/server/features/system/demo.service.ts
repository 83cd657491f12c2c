import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Role } from '#shared/roles.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { companyJobTypes, notaryProfiles, priceItems, titleCompanies, titleCompanyMembers, users } from '#server/db/schema/index.ts';
import { hashPassword } from '#server/lib/crypto.ts';
import { getOrIssueNotaryCredentials } from '#server/providers/signing/certificates.ts';

export interface DemoAccount {
  role: Role;
  name: string;
  email: string;
}

const demoAccounts: DemoAccount[] = [
  { role: 'admin', name: 'Avery Admin', email: 'admin@demo.open-ron.test' },
  { role: 'notary', name: 'Nora Notary', email: 'notary@demo.open-ron.test' },
  { role: 'title', name: 'Tom Title', email: 'title@demo.open-ron.test' },
  { role: 'title_agent', name: 'Tara Agent', email: 'agent@demo.open-ron.test' },
  { role: 'billing', name: 'Bill Billing', email: 'billing@demo.open-ron.test' },
  { role: 'finance', name: 'Fiona Finance', email: 'finance@demo.open-ron.test' },
  { role: 'observer', name: 'Olive Observer', email: 'observer@demo.open-ron.test' },
  { role: 'signer', name: 'Sam Signer', email: 'signer@demo.open-ron.test' },
  { role: 'witness', name: 'Wendy Witness', email: 'witness@demo.open-ron.test' },
];

const demoCompanyName = 'Demo Title & Escrow';

/** The demo's default prices: the notarial fee within every state's cap, the platform's fees apart. */
const demoPrices = [
  { key: 'first_seal', label: 'Notarial act', amountCents: 2500, unit: 'act', feeKind: 'notarial' },
  { key: 'platform', label: 'Platform fee', amountCents: 1000, unit: 'job', feeKind: 'platform' },
  { key: 'identity_check', label: 'Identity check', amountCents: 400, unit: 'signer', feeKind: 'platform' },
  { key: 'witness', label: 'Witness provided', amountCents: 1500, unit: 'witness', feeKind: 'platform' },
] as const;

/**
 * Creates (or refreshes) one active demo account per role with a new random password, which is
 * returned once so the operator can sign in. Nothing here runs unless asked for (--demo).
 */
export async function seedDemoAccounts(db: DbOrTx, secretsKey: Buffer): Promise<{ password: string; accounts: DemoAccount[] }> {
  const password = `demo-${randomBytes(6).toString('base64url')}`;
  const passwordHash = await hashPassword(password);
  const verified = { emailVerifiedAt: new Date(), emailVerifiedVia: 'operator' as const };
  await db.transaction(async (tx) => {
    const ids = new Map<Role, string>();
    for (const account of demoAccounts) {
      const [row] = await tx
        .insert(users)
        // Made up by the operator who asked for demo data: confirmed on their word (decision 010).
        .values({ ...verified, email: account.email, name: account.name, passwordHash, roles: [account.role], status: 'active' })
        .onConflictDoUpdate({ target: users.email, set: { ...verified, passwordHash, roles: [account.role], status: 'active', updatedAt: new Date() } })
        .returning({ id: users.id });
      if (row) ids.set(account.role, row.id);
    }
    const notaryId = ids.get('notary');
    if (notaryId) {
      await tx
        .insert(notaryProfiles)
        .values({
          userId: notaryId,
          commissionState: 'TX',
          commissionNumber: 'DEMO-0001',
          commissionExpiresOn: '2030-12-31',
          county: 'Travis',
          approvalStatus: 'approved',
          approvedAt: new Date(),
        })
        .onConflictDoNothing();
    }
    let [company] = await tx.select({ id: titleCompanies.id }).from(titleCompanies).where(eq(titleCompanies.name, demoCompanyName)).limit(1);
    if (!company) {
      [company] = await tx
        .insert(titleCompanies)
        .values({
          name: demoCompanyName,
          city: 'Austin',
          state: 'TX',
          approvalStatus: 'approved',
          approvedAt: new Date(),
          createdBy: ids.get('title') ?? null,
          defaultNotaryId: notaryId ?? null,
        })
        .returning({ id: titleCompanies.id });
      // One job template, so New Signing Request shows what a company's job types do.
      if (company) {
        await tx.insert(companyJobTypes).values({
          companyId: company.id,
          name: 'Refinance closing',
          notarizationType: 'acknowledgment',
          documentTags: ['signing'],
          witnessCount: 0,
          instructions: 'Check that every borrower on the deed of trust signs and initials each page.',
        });
      }
    }
    for (const role of ['title', 'title_agent'] as const) {
      const userId = ids.get(role);
      if (company && userId) await tx.insert(titleCompanyMembers).values({ companyId: company.id, userId, role }).onConflictDoNothing();
    }
    // A starting price list, so the Prices page shows what the defaults are; only on a platform that has none.
    const [anyPrice] = await tx.select({ id: priceItems.id }).from(priceItems).limit(1);
    if (!anyPrice) {
      await tx.insert(priceItems).values(demoPrices.map((price, position) => ({ ...price, companyId: null, position, updatedBy: ids.get('finance') ?? null })));
    }
  });
  // The demo notary's signing certificate, issued now rather than at a first seal, so that an administrator trying the demo
  // finds one to look at (and to revoke) in the Users page.
  const [notary] = await db
    .select({
      userId: notaryProfiles.userId,
      commissionState: notaryProfiles.commissionState,
      commissionNumber: notaryProfiles.commissionNumber,
      commissionExpiresOn: notaryProfiles.commissionExpiresOn,
      name: users.name,
      email: users.email,
    })
    .from(notaryProfiles)
    .innerJoin(users, eq(users.id, notaryProfiles.userId))
    .where(eq(users.email, 'notary@demo.open-ron.test'))
    .limit(1);
  if (notary) await getOrIssueNotaryCredentials(db, secretsKey, notary);
  return { password, accounts: demoAccounts };
}
