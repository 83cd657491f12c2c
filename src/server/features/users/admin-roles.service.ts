import { and, eq, inArray } from 'drizzle-orm';
import { getUserRoles, roleLabels, type Role } from '#shared/roles.ts';
import { toSingleLine } from '#shared/text.ts';
import { notaryProfiles, titleCompanies, titleCompanyMembers, userSignatures, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { conflict, notFound } from '#server/lib/errors.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { announceToUsers } from '#server/features/jobs/access-change.ts';
import { revokeUserSessions } from '#server/features/auth/sessions.service.ts';
import { assertAnotherActiveAdmin, lockAdminRoster, lockUser, requireAdmin, userNotFound } from './account-rules.ts';

const roleWord = (role: Role) => `the ${roleLabels[role].toLowerCase()} role`;
const companyRoles: readonly Role[] = ['title', 'title_agent'];

/** After a role change is committed: the person's next request reads their roles afresh, and their open tabs fetch again. */
async function announceRoleChange(ctx: Ctx, userId: string): Promise<void> {
  await ctx.sessionCache.invalidateUser(userId);
  await announceToUsers(ctx, [userId], { type: 'access-changed' });
}

/** GET /api/admin/users/{id}/roles. */
export async function getRolesOf(ctx: Ctx, userId: string): Promise<{ roles: Role[] }> {
  requireAdmin(ctx);
  const [row] = await ctx.db.select({ roles: users.roles }).from(users).where(eq(users.id, userId));
  if (!row) throw userNotFound();
  return { roles: getUserRoles({ roles: row.roles }) };
}

/**
 * POST /api/admin/users/{id}/roles: one more role, in force from the person's next request. The
 * notary role approves nothing: the notary takes work only once their notary profile is approved.
 */
export async function addRole(ctx: Ctx, userId: string, role: Role): Promise<{ roles: Role[]; message: string }> {
  requireAdmin(ctx);
  const outcome = await ctx.db.transaction(async (tx) => {
    const row = await lockUser(tx, userId);
    const name = toSingleLine(row.name);
    const before = getUserRoles({ roles: row.roles });
    if (before.includes(role)) throw conflict(`${name} already has ${roleWord(role)}.`);
    const after = [...before, role];
    await tx.update(users).set({ roles: after, updatedAt: new Date() }).where(eq(users.id, userId));
    await appendAuditEvent(
      { ...ctx, db: tx },
      { action: 'user.role_added', data: { userId, userName: row.name, role, before: { roles: before }, after: { roles: after } } },
    );
    let note = '';
    if (role === 'notary') {
      const [profile] = await tx.select({ approvalStatus: notaryProfiles.approvalStatus }).from(notaryProfiles).where(eq(notaryProfiles.userId, userId));
      if (profile?.approvalStatus !== 'approved') note = ' They take no notarizations until their notary profile is approved.';
    } else if (companyRoles.includes(role)) {
      const [member] = await tx
        .select({ companyId: titleCompanyMembers.companyId })
        .from(titleCompanyMembers)
        .where(eq(titleCompanyMembers.userId, userId))
        .limit(1);
      if (!member) note = ' Add them to their title company on its page so they see its jobs.';
    }
    // A role that must use a second factor is not carried by sessions that began without one: the person signs in again and sets one up.
    if (ctx.config.mfa.requiredRoles.includes(role)) {
      await revokeUserSessions({ ...ctx, db: tx }, userId);
      note += ' They sign in again and set up a second factor before using it.';
    }
    return { roles: after, message: `${name} now has ${roleWord(role)}.${note}` };
  });
  await announceRoleChange(ctx, userId);
  return outcome;
}

/**
 * DELETE /api/admin/users/{id}/roles/{role}: in force from the person's next request. An
 * administrator keeps their own administrator role and the platform keeps one active administrator.
 * Taking a title company role also ends the person's memberships in that role, so company access
 * drops at once.
 */
export async function removeRole(ctx: Ctx, userId: string, role: Role): Promise<{ roles: Role[]; message: string }> {
  const admin = requireAdmin(ctx);
  const outcome = await ctx.db.transaction(async (tx) => {
    if (role === 'admin') await lockAdminRoster(tx);
    const row = await lockUser(tx, userId);
    const name = toSingleLine(row.name);
    const before = getUserRoles({ roles: row.roles });
    if (!before.includes(role)) throw notFound(`${name} does not have ${roleWord(role)}.`);
    if (role === 'admin') {
      if (userId === admin.id) throw conflict('You cannot remove your own administrator role; ask another administrator.');
      await assertAnotherActiveAdmin(tx, row, `${name} is the last active administrator; give another person the administrator role first.`);
    }
    const after = before.filter((held) => held !== role);
    if (after.length === 0) throw conflict(`${name} must keep at least one role: give them another role first.`);
    await tx.update(users).set({ roles: after, updatedAt: new Date() }).where(eq(users.id, userId));
    let companiesLeft: string[] = [];
    if (companyRoles.includes(role)) {
      // Company access needs a company role and a membership; with neither role left, no membership may linger either.
      const stillStaff = after.some((held) => companyRoles.includes(held));
      const left = await tx
        .delete(titleCompanyMembers)
        .where(
          stillStaff
            ? and(eq(titleCompanyMembers.userId, userId), eq(titleCompanyMembers.role, role as 'title' | 'title_agent'))
            : eq(titleCompanyMembers.userId, userId),
        )
        .returning({ companyId: titleCompanyMembers.companyId });
      if (left.length > 0) {
        const companies = await tx
          .select({ name: titleCompanies.name })
          .from(titleCompanies)
          .where(
            inArray(
              titleCompanies.id,
              left.map((entry) => entry.companyId),
            ),
          )
          .orderBy(titleCompanies.name);
        companiesLeft = companies.map((company) => company.name);
      }
    }
    await appendAuditEvent(
      { ...ctx, db: tx },
      { action: 'user.role_removed', data: { userId, userName: row.name, role, companiesLeft, before: { roles: before }, after: { roles: after } } },
    );
    const note = companiesLeft.length > 0 ? ` They are no longer on the staff of ${companiesLeft.map(toSingleLine).join(', ')}.` : '';
    return { roles: after, message: `${name} no longer has ${roleWord(role)}.${note}` };
  });
  await announceRoleChange(ctx, userId);
  return outcome;
}

/**
 * POST /api/admin/users/{id}/reset-signature: the saved signature and initials stop being the
 * person's to reuse (documents already signed keep their images); they draw new ones next time.
 */
export async function resetSavedSignature(ctx: Ctx, userId: string): Promise<{ ok: true; message: string }> {
  requireAdmin(ctx);
  return ctx.db.transaction(async (tx) => {
    const row = await lockUser(tx, userId);
    const name = toSingleLine(row.name);
    const cleared = await tx
      .update(userSignatures)
      .set({ isCurrent: false })
      .where(and(eq(userSignatures.userId, userId), eq(userSignatures.isCurrent, true)))
      .returning({ id: userSignatures.id, kind: userSignatures.kind });
    if (cleared.length === 0) throw conflict(`${name} has no saved signature or initials to clear.`);
    const hadSignature = cleared.some((entry) => entry.kind === 'signature');
    const hadInitials = cleared.some((entry) => entry.kind === 'initials');
    await appendAuditEvent(
      { ...ctx, db: tx },
      {
        action: 'user.signature_reset',
        data: {
          userId,
          userName: row.name,
          signatureIds: cleared.map((entry) => entry.id),
          before: { hasSignature: hadSignature, hasInitials: hadInitials },
          after: { hasSignature: false, hasInitials: false },
        },
      },
    );
    const what = hadSignature && hadInitials ? 'signature and initials were' : hadSignature ? 'signature was' : 'initials were';
    return { ok: true as const, message: `${name}’s saved ${what} cleared; they will draw new ones the next time they sign.` };
  });
}
