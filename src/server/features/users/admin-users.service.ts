import { and, count, desc, eq, ilike, inArray, ne, or, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import type { AdminUser, adminUserPageSchema, adminUserQuerySchema, createAdminUserInputSchema, updateAdminUserInputSchema } from '#shared/admin-users.ts';
import { getUserRoles, roleLabels, type Role } from '#shared/roles.ts';
import { toSingleLine } from '#shared/text.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { containsPattern } from '#server/db/like.ts';
import { titleCompanies, titleCompanyMembers, userSignatures, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { conflict } from '#server/lib/errors.ts';
import { queueEmail } from '#server/lib/outbox.ts';
import { appendAuditEvent, findAccountEventsAbout } from '#server/features/audit/audit.service.ts';
import { queueEmailVerification } from '#server/features/auth/email-verification.service.ts';
import { createPasswordLink, endPasswordLinks } from '#server/features/auth/password-reset.service.ts';
import { isUniqueViolation } from '#server/features/auth/users.ts';
import { announceToUsers } from '#server/features/jobs/access-change.ts';
import { mailTemplates } from '#server/features/mail/templates.ts';
import { deactivateLockedUser, lockAdminRoster, lockUser, reactivateLockedUser, requireAdmin, userNotFound, type UserRow } from './account-rules.ts';

type AdminUserPage = z.infer<typeof adminUserPageSchema>;
type AdminUserResponse = { user: AdminUser; message: string };

/** The set-password invitation lives a week: long enough to be seen after a weekend, short enough to expire unused. */
const invitationLifetimeMs = 7 * 24 * 3600_000;

/** Rows as the Users page shows them: companies and saved signatures read for the whole page at once. */
async function toAdminUsers(db: DbOrTx, rows: UserRow[]): Promise<AdminUser[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);
  const memberships = await db
    .select({ userId: titleCompanyMembers.userId, id: titleCompanies.id, name: titleCompanies.name, role: titleCompanyMembers.role })
    .from(titleCompanyMembers)
    .innerJoin(titleCompanies, eq(titleCompanies.id, titleCompanyMembers.companyId))
    .where(inArray(titleCompanyMembers.userId, ids))
    .orderBy(titleCompanies.name, titleCompanies.id);
  const saved = await db
    .selectDistinct({ userId: userSignatures.userId, kind: userSignatures.kind })
    .from(userSignatures)
    .where(and(inArray(userSignatures.userId, ids), eq(userSignatures.isCurrent, true)));
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    email: row.email,
    roles: getUserRoles({ roles: row.roles }),
    status: row.status,
    emailVerifiedAt: row.emailVerifiedAt?.toISOString() ?? null,
    lastLoginAt: row.lastLoginAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    hasPassword: row.passwordHash !== null,
    companies: memberships.filter((member) => member.userId === row.id).map(({ id, name, role }) => ({ id, name, role })),
    hasSignature: saved.some((entry) => entry.userId === row.id && entry.kind === 'signature'),
    hasInitials: saved.some((entry) => entry.userId === row.id && entry.kind === 'initials'),
  }));
}

async function readAdminUser(db: DbOrTx, userId: string): Promise<AdminUser> {
  const [row] = await db.select().from(users).where(eq(users.id, userId));
  if (!row) throw userNotFound();
  const [user] = await toAdminUsers(db, [row]);
  if (!user) throw userNotFound();
  return user;
}

/** GET /api/admin/users: every word of q in the name or the email, with the role and status asked for; newest first. */
export async function findAdminUsers(ctx: Ctx, query: z.output<typeof adminUserQuerySchema>): Promise<AdminUserPage> {
  requireAdmin(ctx);
  const conditions: SQL[] = [];
  for (const word of (query.q ?? '').split(/\s+/).filter(Boolean)) {
    const pattern = containsPattern(word);
    const matches = or(ilike(users.name, pattern), ilike(users.email, pattern));
    if (matches) conditions.push(matches);
  }
  if (query.role) conditions.push(sql`${query.role} = any(${users.roles})`);
  if (query.status) conditions.push(eq(users.status, query.status));
  const where = and(...conditions);
  const [total] = await ctx.db.select({ value: count() }).from(users).where(where);
  const rows = await ctx.db
    .select()
    .from(users)
    .where(where)
    .orderBy(desc(users.createdAt), desc(users.id))
    .limit(query.pageSize)
    .offset((query.page - 1) * query.pageSize);
  return { items: await toAdminUsers(ctx.db, rows), total: total?.value ?? 0, page: query.page, pageSize: query.pageSize };
}

/** GET /api/admin/users/{id}. */
export async function getAdminUser(ctx: Ctx, userId: string): Promise<AdminUser> {
  requireAdmin(ctx);
  return readAdminUser(ctx.db, userId);
}

/** "role: Signer", "roles: Notary, Signer": for the invitation email. */
function describeRolesForMail(roles: readonly Role[]): string {
  return `${roles.length === 1 ? 'role' : 'roles'}: ${roles.map((role) => roleLabels[role]).join(', ')}`;
}

function emailTaken(existing: Pick<UserRow, 'status'> | null): Error {
  const hint = existing?.status === 'disabled' ? ' That account is deactivated: reactivate it instead of creating another.' : '';
  return conflict(`An account with this email already exists.${hint}`);
}

/**
 * POST /api/admin/users: an active account with no password, and an email whose single-use link
 * (7 days) lets its person choose one. A notary role approves nothing: taking work still needs an
 * approved notary profile.
 */
export async function createAdminUser(ctx: Ctx, input: z.output<typeof createAdminUserInputSchema>): Promise<AdminUserResponse> {
  const admin = requireAdmin(ctx);
  let userId: string;
  try {
    userId = await ctx.db.transaction(async (tx) => {
      const [existing] = await tx.select({ status: users.status }).from(users).where(eq(users.email, input.email));
      if (existing) throw emailTaken(existing);
      const [created] = await tx
        .insert(users)
        .values({ name: input.name, email: input.email, roles: input.roles, status: 'active', passwordHash: null })
        .returning();
      if (!created) throw new Error('user insert returned no row');
      const link = await createPasswordLink({ ...ctx, db: tx }, created.id, invitationLifetimeMs);
      await queueEmail(tx, {
        to: created.email,
        kind: 'account_created',
        ...mailTemplates.accountCreated.render({
          name: created.name,
          roles: describeRolesForMail(input.roles),
          link,
          forgotPasswordLink: `${ctx.config.publicUrl}/login`,
        }),
      });
      await appendAuditEvent(
        { ...ctx, db: tx },
        {
          action: 'user.created',
          data: {
            userId: created.id,
            userName: created.name,
            before: {},
            after: { name: created.name, email: created.email, roles: input.roles, status: 'active' },
          },
        },
      );
      return created.id;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw emailTaken(null);
    throw error;
  }
  ctx.log.info({ event: 'user.created_by_admin', userId, by: admin.id }, 'account created by an administrator');
  const user = await readAdminUser(ctx.db, userId);
  const notaryNote = input.roles.includes('notary') ? ' As a notary they take no work until their notary profile is approved.' : '';
  return {
    user,
    message: `${toSingleLine(user.name)}’s account was created. An email with a link to choose a password went to ${user.email}; it works for 7 days.${notaryNote}`,
  };
}

/**
 * A new address for the account, inside the caller's transaction: it must be confirmed again, the
 * password links sent to the old one stop working, and the old address is told.
 */
async function changeEmail(ctx: Ctx & { db: DbOrTx }, row: UserRow, email: string): Promise<void> {
  const [taken] = await ctx.db
    .select({ status: users.status })
    .from(users)
    .where(and(eq(users.email, email), ne(users.id, row.id)));
  if (taken) throw emailTaken(null);
  await ctx.db.update(users).set({ email, emailVerifiedAt: null, emailVerifiedVia: null, updatedAt: new Date() }).where(eq(users.id, row.id));
  await endPasswordLinks(ctx.db, row.id);
  await queueEmailVerification(ctx, { id: row.id, email, name: row.name });
  await queueEmail(ctx.db, { to: row.email, kind: 'email_changed', ...mailTemplates.emailChanged.render({ name: row.name, oldEmail: row.email }) });
}

/**
 * PUT /api/admin/users/{id}: the name, the email (confirmed again by its owner) and whether the
 * account is switched on. Values equal to the current ones change nothing.
 */
export async function updateAdminUser(ctx: Ctx, userId: string, input: z.output<typeof updateAdminUserInputSchema>): Promise<AdminUserResponse> {
  const admin = requireAdmin(ctx);
  let outcome: { messages: string[]; isDeactivated: boolean; isChanged: boolean };
  try {
    outcome = await ctx.db.transaction(async (tx) => {
      const txCtx = { ...ctx, db: tx };
      if (input.status === 'disabled') await lockAdminRoster(tx);
      const row = await lockUser(tx, userId);
      const messages: string[] = [];
      const before: Record<string, string> = {};
      const after: Record<string, string> = {};
      if (input.name !== undefined && input.name !== row.name) {
        await tx.update(users).set({ name: input.name, updatedAt: new Date() }).where(eq(users.id, row.id));
        before.name = row.name;
        after.name = input.name;
        messages.push(`The name is now ${toSingleLine(input.name)}.`);
      }
      if (input.email !== undefined && input.email !== row.email) {
        await changeEmail(txCtx, { ...row, name: after.name ?? row.name }, input.email);
        before.email = row.email;
        after.email = input.email;
        messages.push(`The email address is now ${input.email}: a confirmation link went there, and a notice went to ${row.email}.`);
      }
      if (Object.keys(after).length > 0) {
        await appendAuditEvent(txCtx, { action: 'user.updated', data: { userId: row.id, userName: after.name ?? row.name, before, after } });
      }
      const name = toSingleLine(after.name ?? row.name);
      let isDeactivated = false;
      if (input.status === 'disabled' && row.status !== 'disabled') {
        await deactivateLockedUser(txCtx, { ...row, name: after.name ?? row.name });
        isDeactivated = true;
        messages.push(`${name}’s account is deactivated: they were signed out everywhere and cannot sign in.`);
      } else if (input.status === 'active' && row.status !== 'active') {
        await reactivateLockedUser(txCtx, { ...row, name: after.name ?? row.name });
        messages.push(`${name}’s account is active again: they can sign in.`);
      }
      return { messages, isDeactivated, isChanged: messages.length > 0 };
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw emailTaken(null);
    throw error;
  }
  if (outcome.isChanged) {
    // The person's open sessions carry their name, address and status: the next request reads them afresh.
    await ctx.sessionCache.invalidateUser(userId);
    ctx.log.info({ event: 'user.updated_by_admin', userId, by: admin.id }, 'account changed by an administrator');
  }
  if (outcome.isDeactivated) await announceToUsers(ctx, [userId], { type: 'signed-out' });
  return { user: await readAdminUser(ctx.db, userId), message: outcome.isChanged ? outcome.messages.join(' ') : 'Nothing changed.' };
}

/**
 * DELETE /api/admin/users/{id}: deactivation, never deletion. The person is signed out everywhere at
 * once and cannot sign in or register the address again until reactivated; their jobs, journal
 * entries and audit events stay.
 */
export async function deactivateAdminUser(ctx: Ctx, userId: string): Promise<AdminUserResponse> {
  const admin = requireAdmin(ctx);
  const name = await ctx.db.transaction(async (tx) => {
    await lockAdminRoster(tx);
    const row = await lockUser(tx, userId);
    await deactivateLockedUser({ ...ctx, db: tx }, row);
    return toSingleLine(row.name);
  });
  await ctx.sessionCache.invalidateUser(userId);
  await announceToUsers(ctx, [userId], { type: 'signed-out' });
  ctx.log.info({ event: 'user.deactivated', userId, by: admin.id }, 'account deactivated');
  return { user: await readAdminUser(ctx.db, userId), message: `${name}’s account is deactivated: they were signed out everywhere and cannot sign in.` };
}

/** GET /api/admin/users/{id}/audit: the latest 200 account events about this person. */
export async function findAccountAudit(ctx: Ctx, userId: string) {
  requireAdmin(ctx);
  const [row] = await ctx.db.select({ id: users.id }).from(users).where(eq(users.id, userId));
  if (!row) throw userNotFound();
  return { items: await findAccountEventsAbout(ctx.db, userId, 200) };
}
