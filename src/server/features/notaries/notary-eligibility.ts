import { eq } from 'drizzle-orm';
import { formatCalendarDay, getCalendarDay } from '#shared/dates.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { notaryProfiles, users } from '#server/db/schema/index.ts';
import { AppError, badRequest } from '#server/lib/errors.ts';
import { toSingleLine } from '#shared/text.ts';

type ProfileRow = typeof notaryProfiles.$inferSelect;
type UserRow = Pick<typeof users.$inferSelect, 'id' | 'name' | 'email' | 'status'>;

/**
 * Why a notary cannot take or finish work now, from the third person's view (a job creator, an
 * administrator), or null when they can: approved, account active, not deactivated, commission
 * in force (begun, when its start is recorded, and not expired). The signing certificate needs no check of its own: an uploaded one past its expiry
 * is no longer used and the platform issues one up to the commission's end (decision 027).
 */
export function findWorkBlocker(user: UserRow, profile: ProfileRow, now: Date): string | null {
  const name = toSingleLine(user.name);
  if (profile.approvalStatus === 'rejected') return `${name}’s notary application was not approved.`;
  if (profile.approvalStatus !== 'approved') return `${name} is not an approved notary yet.`;
  if (user.status !== 'active' || !profile.isActive) return `${name} is deactivated and takes no new work.`;
  if (profile.commissionExpiresOn < getCalendarDay(now)) return `${name}’s notary commission expired on ${profile.commissionExpiresOn}.`;
  if (profile.commissionStartsOn && profile.commissionStartsOn > getCalendarDay(now)) {
    return `${name}’s notary commission begins on ${formatCalendarDay(profile.commissionStartsOn)}.`;
  }
  return null;
}

/** The same reasons, told to the notary themselves. */
export function findOwnWorkBlocker(user: UserRow, profile: ProfileRow, now: Date): string | null {
  if (profile.approvalStatus === 'rejected') return 'Your notary application was not approved.';
  if (profile.approvalStatus !== 'approved') return 'Your notary profile is waiting for an administrator’s approval.';
  if (user.status !== 'active' || !profile.isActive) return 'An administrator deactivated your notary account; you take no new work.';
  if (profile.commissionExpiresOn < getCalendarDay(now)) return `Your notary commission expired on ${profile.commissionExpiresOn}; update it in your profile.`;
  if (profile.commissionStartsOn && profile.commissionStartsOn > getCalendarDay(now)) {
    return `Your notary commission begins on ${formatCalendarDay(profile.commissionStartsOn)}.`;
  }
  return null;
}

async function findNotary(db: DbOrTx, notaryId: string) {
  const [row] = await db
    .select({ user: { id: users.id, name: users.name, email: users.email, status: users.status, roles: users.roles }, profile: notaryProfiles })
    .from(users)
    .innerJoin(notaryProfiles, eq(notaryProfiles.userId, users.id))
    .where(eq(users.id, notaryId))
    .limit(1);
  return row;
}

/**
 * A notary and why they cannot take work now (null when they can), or null when the id is no notary
 * at all: for a title company's default notary, which is refused with the reason as a bad choice.
 */
export async function findNotaryStanding(
  db: DbOrTx,
  notaryId: string,
  now = new Date(),
): Promise<{ notary: { id: string; name: string; roles: string[] }; blocker: string | null } | null> {
  const row = await findNotary(db, notaryId);
  if (!row) return null;
  return { notary: { id: row.user.id, name: row.user.name, roles: row.user.roles }, blocker: findWorkBlocker(row.user, row.profile, now) };
}

/**
 * A notary a job may be given to: 400 when the id is no notary at all, 409 with the reason when
 * the notary may not take work now.
 */
export async function assertNotaryCanTakeWork(db: DbOrTx, notaryId: string, now = new Date()): Promise<{ id: string; name: string; email: string }> {
  const row = await findNotary(db, notaryId);
  if (!row) throw badRequest('Choose an approved, active notary.');
  const blocker = findWorkBlocker(row.user, row.profile, now);
  if (blocker) throw new AppError(409, 'notary_unavailable', `${blocker} Choose another notary.`);
  return { id: row.user.id, name: row.user.name, email: row.user.email };
}

/** The notary about to seal: 409 with the reason, in their words, when they may not. */
export async function assertNotaryMaySeal(db: DbOrTx, notaryId: string, now = new Date()): Promise<void> {
  const row = await findNotary(db, notaryId);
  if (!row) throw new AppError(409, 'notary_unavailable', 'Your notary commission details are missing; they are needed for the certificate.');
  const blocker = findOwnWorkBlocker(row.user, row.profile, now);
  if (blocker) throw new AppError(409, 'notary_unavailable', `${blocker} The job cannot be sealed.`);
}
