import { and, eq, sql } from 'drizzle-orm';
import { formatCalendarDay, getCalendarDay } from '#shared/dates.ts';
import { notaryExpiryWarningDays, type NotaryExpiryItem } from '#shared/notary-profile.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { notaryExpiryWarnings, notaryProfiles, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { queueEmail } from '#server/lib/outbox.ts';
import { mailTemplates } from '#server/features/mail/templates.ts';
import { findUploadedCredential } from '#server/providers/signing/certificates.ts';
import { countDaysUntil, expiryItemNames, listExpiringItems } from './notary-profile-checks.ts';

type Deps = Pick<Ctx, 'db'> & { publicUrl: string };

/**
 * Warns each approved notary, and every administrator, once per item per expiry date when their
 * commission, uploaded signing certificate, bond or E&O insurance expires within 30 days of `now`.
 * The warning row is inserted first (on conflict nothing), in the same transaction as the emails,
 * so running the sweep again, or on two servers, sends nothing twice. Returns how many it sent.
 */
export async function sendNotaryExpiryWarnings(deps: Deps, now: Date): Promise<number> {
  const today = getCalendarDay(now);
  const notaries = await deps.db
    .select({ profile: notaryProfiles, name: users.name, email: users.email })
    .from(notaryProfiles)
    .innerJoin(users, eq(users.id, notaryProfiles.userId))
    .where(and(eq(notaryProfiles.approvalStatus, 'approved'), eq(users.status, 'active')));
  const admins = await deps.db
    .select({ email: users.email })
    .from(users)
    .where(and(sql`'admin' = any(${users.roles})`, eq(users.status, 'active')));
  let sent = 0;
  for (const notary of notaries) {
    const uploaded = await findUploadedCredential(deps.db, notary.profile.userId);
    const items = listExpiringItems(notary.profile, uploaded ? getCalendarDay(uploaded.notAfter) : null).filter(({ expiresOn }) => {
      const days = countDaysUntil(expiresOn, today);
      return days >= 0 && days <= notaryExpiryWarningDays;
    });
    for (const { item, expiresOn } of items) {
      const isNew = await deps.db.transaction(async (tx) => {
        const inserted = await tx
          .insert(notaryExpiryWarnings)
          .values({ notaryId: notary.profile.userId, item, expiresOn, sentAt: now })
          .onConflictDoNothing()
          .returning({ item: notaryExpiryWarnings.item });
        if (inserted.length === 0) return false;
        await queueWarningEmails(tx, {
          ...notary,
          publicUrl: deps.publicUrl,
          adminEmails: admins.map((admin) => admin.email),
          item,
          expiresOn,
          days: countDaysUntil(expiresOn, today),
        });
        return true;
      });
      if (isNew) sent += 1;
    }
  }
  return sent;
}

async function queueWarningEmails(
  tx: DbOrTx,
  facts: { name: string; email: string; publicUrl: string; adminEmails: string[]; item: NotaryExpiryItem; expiresOn: string; days: number },
): Promise<void> {
  const what = expiryItemNames[facts.item];
  const when = facts.days === 0 ? 'today' : facts.days === 1 ? 'tomorrow' : `in ${facts.days} days`;
  // The expiry is a calendar day, written the way people read it ("Jun 30, 2031").
  const expiresOn = formatCalendarDay(facts.expiresOn, { locale: 'en-US' });
  await queueEmail(tx, {
    to: facts.email,
    kind: 'notary_expiry_warning',
    ...mailTemplates.notaryExpiryWarning.render({ name: facts.name, what, when, expiresOn, profileLink: `${facts.publicUrl}/dashboard?tab=profile` }),
  });
  for (const adminEmail of facts.adminEmails) {
    await queueEmail(tx, {
      to: adminEmail,
      kind: 'notary_expiry_warning_admin',
      ...mailTemplates.notaryExpiryWarningAdmin.render({
        name: facts.name,
        email: facts.email,
        what,
        when,
        expiresOn,
        profileLink: `${facts.publicUrl}/dashboard?tab=approvals`,
      }),
    });
  }
}

/** Runs the sweep now and then every `everyMs` (hourly by default); the timer does not hold the process. */
export function startNotaryExpiryWarner(deps: Deps & { log: { error(object: unknown, message: string): void } }, everyMs = 3600_000): () => void {
  const run = () =>
    void sendNotaryExpiryWarnings(deps, new Date()).catch((error: unknown) => deps.log.error({ err: error }, 'Sending notary expiry warnings failed.'));
  const timer = setInterval(run, everyMs);
  timer.unref();
  run();
  return () => clearInterval(timer);
}
