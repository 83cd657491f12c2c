import { and, count, eq, isNull, ne, sql } from 'drizzle-orm';
import type { SessionUser } from '#shared/auth.ts';
import { toSingleLine } from '#shared/text.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { sessions, trustedDevices, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { conflict, notFound, unauthorized } from '#server/lib/errors.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';

export type UserRow = typeof users.$inferSelect;
type TxCtx = Ctx & { db: DbOrTx };

export const userNotFound = () => notFound('No user with that id.');

/** The administrator making the change (the routes admit only administrators). */
export function requireAdmin(ctx: Ctx): SessionUser {
  if (!ctx.user) throw unauthorized();
  return ctx.user;
}

/**
 * The person's row, locked until the transaction ends so two administrators' changes queue up. Not
 * FOR UPDATE: that would also block rows naming this person (an audit event they act in) until commit.
 */
export async function lockUser(db: DbOrTx, userId: string): Promise<UserRow> {
  const [row] = await db.select().from(users).where(eq(users.id, userId)).for('no key update');
  if (!row) throw userNotFound();
  return row;
}

const isActiveAdmin = (row: UserRow) => row.status === 'active' && row.roles.includes('admin');

/**
 * One lock for the roster of administrators, so two of them removing each other at once cannot both
 * pass the last-administrator rule. Taken before any row lock by a change that may demote or switch
 * off an administrator, so every such change waits in the same order.
 */
export async function lockAdminRoster(db: DbOrTx): Promise<void> {
  await db.execute(sql`select pg_advisory_xact_lock(hashtext('users:active-admins'))`);
}

/** Refuses a change that would leave no active administrator: nobody could then run the platform. */
export async function assertAnotherActiveAdmin(db: DbOrTx, row: UserRow, message: string): Promise<void> {
  if (!isActiveAdmin(row)) return;
  await lockAdminRoster(db);
  const [others] = await db
    .select({ value: count() })
    .from(users)
    .where(and(eq(users.status, 'active'), sql`'admin' = any(${users.roles})`, ne(users.id, row.id)));
  if ((others?.value ?? 0) === 0) throw conflict(message);
}

/**
 * Switches an account off inside the caller's transaction: status disabled, every session and
 * remembered device ended, audited. Jobs, journal entries and audit events stay. The caller clears
 * the session cache and tells the open tabs once the transaction is committed (endSignedOutSessions).
 */
export async function deactivateLockedUser(ctx: TxCtx, row: UserRow): Promise<void> {
  const admin = requireAdmin(ctx);
  const name = toSingleLine(row.name);
  if (row.id === admin.id) throw conflict('You cannot deactivate your own account; ask another administrator.');
  if (row.status === 'disabled') throw conflict(`${name}’s account is already deactivated.`);
  if (row.status === 'pending')
    throw conflict(`${name}’s application is waiting for a decision: turn it down in Approvals instead of deactivating the account.`);
  if (row.status === 'rejected') throw conflict(`${name}’s application was turned down, so the account already cannot sign in.`);
  await assertAnotherActiveAdmin(ctx.db, row, `${name} is the last active administrator; give another person the administrator role first.`);
  const now = new Date();
  await ctx.db.update(users).set({ status: 'disabled', updatedAt: now }).where(eq(users.id, row.id));
  await ctx.db
    .update(sessions)
    .set({ revokedAt: now })
    .where(and(eq(sessions.userId, row.id), isNull(sessions.revokedAt)));
  await ctx.db
    .update(trustedDevices)
    .set({ revokedAt: now })
    .where(and(eq(trustedDevices.userId, row.id), isNull(trustedDevices.revokedAt)));
  await appendAuditEvent(ctx, {
    action: 'user.deactivated',
    data: { userId: row.id, userName: row.name, before: { status: row.status }, after: { status: 'disabled' } },
  });
}

/** Switches a deactivated account back on; an application still waiting or turned down is decided in Approvals instead. */
export async function reactivateLockedUser(ctx: TxCtx, row: UserRow): Promise<void> {
  const name = toSingleLine(row.name);
  if (row.status === 'active') throw conflict(`${name}’s account is already active.`);
  if (row.status === 'pending') throw conflict(`${name}’s application is waiting for a decision: approve it in Approvals instead.`);
  if (row.status === 'rejected')
    throw conflict(`${name}’s application was turned down; an application is decided once in Approvals, and cannot be reactivated here.`);
  await ctx.db.update(users).set({ status: 'active', updatedAt: new Date() }).where(eq(users.id, row.id));
  await appendAuditEvent(ctx, {
    action: 'user.reactivated',
    data: { userId: row.id, userName: row.name, before: { status: row.status }, after: { status: 'active' } },
  });
}
