import { and, asc, desc, eq, gt, isNull, ne, sql } from 'drizzle-orm';
import type { z } from 'zod';
import { inviteMessages } from '#shared/invites.ts';
import { toSingleLine } from '#shared/text.ts';
import { type CompanyAgent, type inviteAgentInputSchema } from '#shared/title-companies.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { invites, titleCompanies, titleCompanyMembers, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { createToken, hashToken } from '#server/lib/crypto.ts';
import { AppError, conflict, forbidden, notFound, unauthorized } from '#server/lib/errors.ts';
import { queueEmail } from '#server/lib/outbox.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { findUserByEmail } from '#server/features/auth/users.ts';
import { announceToUsers } from '#server/features/jobs/access-change.ts';
import { inviteLifetimeMs } from '#server/features/jobs/participants.service.ts';
import { mailTemplates } from '#server/features/mail/templates.ts';
import { getCompanyAccess, requireManager, requireOpen, type CompanyRow } from './company-access.ts';

type CompanyRole = 'title' | 'title_agent';
type TxCtx = Ctx & { db: DbOrTx };

const agentNotFound = () => notFound('No member or invitation with that id, or you may not see it.');
const managersOnly = 'Only the company’s title staff or an administrator may manage its people.';
const companyRoles: readonly string[] = ['title', 'title_agent'];

/** An invitation to a company that is still open: not used, not withdrawn, not expired. */
const isOpenInvitation = (companyId: string) =>
  and(
    eq(invites.companyId, companyId),
    eq(invites.purpose, 'company_member'),
    isNull(invites.usedAt),
    isNull(invites.revokedAt),
    gt(invites.expiresAt, new Date()),
  );

function toInvitedAgent(invite: typeof invites.$inferSelect): CompanyAgent {
  return {
    id: invite.id,
    userId: null,
    name: invite.name ?? invite.email ?? '',
    email: invite.email ?? '',
    role: invite.roles.includes('title') ? 'title' : 'title_agent',
    status: 'invited',
    since: invite.createdAt.toISOString(),
    expiresAt: invite.expiresAt.toISOString(),
  };
}

/** GET /api/title-companies/{id}/agents: the company's title staff and agents, then the invitations waiting for an answer. */
export async function findCompanyAgents(ctx: Ctx, companyId: string): Promise<{ items: CompanyAgent[] }> {
  const access = await getCompanyAccess(ctx, companyId);
  requireManager(access, managersOnly);
  const members = await ctx.db
    .select({
      id: titleCompanyMembers.id,
      userId: users.id,
      name: users.name,
      email: users.email,
      role: titleCompanyMembers.role,
      since: titleCompanyMembers.createdAt,
    })
    .from(titleCompanyMembers)
    .innerJoin(users, eq(users.id, titleCompanyMembers.userId))
    .where(eq(titleCompanyMembers.companyId, companyId))
    .orderBy(asc(titleCompanyMembers.role), asc(users.name), asc(users.id));
  // An invitation names no account until it is accepted: whether the address has one is not the company's to learn.
  const waiting = await ctx.db.select({ invite: invites }).from(invites).where(isOpenInvitation(companyId)).orderBy(desc(invites.createdAt), desc(invites.id));
  return {
    items: [
      ...members.map((member) => ({ ...member, status: 'active' as const, since: member.since.toISOString(), expiresAt: null })),
      ...waiting.map((row) => toInvitedAgent(row.invite)),
    ],
  };
}

/**
 * Invites a person to a company by email, inside the caller's transaction (the company row locked):
 * a new person gets a link that creates their account in the company, an existing account a link
 * to accept while signed in. Refused (409) for someone already a member or already invited.
 */
export async function inviteMember(
  ctx: TxCtx,
  company: CompanyRow,
  input: { name: string; email: string; role: CompanyRole },
): Promise<{ agent: CompanyAgent; message: string }> {
  const inviter = ctx.user;
  if (!inviter) throw unauthorized();
  const companyName = toSingleLine(company.name);
  if (company.approvalStatus !== 'approved') throw conflict(`${companyName} is not approved yet; approve it before inviting people.`);
  const existing = await findUserByEmail(ctx.db, input.email);
  if (existing) {
    const [membership] = await ctx.db
      .select({ role: titleCompanyMembers.role })
      .from(titleCompanyMembers)
      .where(and(eq(titleCompanyMembers.companyId, company.id), eq(titleCompanyMembers.userId, existing.id)))
      .limit(1);
    if (membership) throw conflict(`${toSingleLine(existing.name)} (${existing.email}) is already a member of ${companyName}.`);
  }
  const [waiting] = await ctx.db
    .select({ id: invites.id })
    .from(invites)
    .where(and(isOpenInvitation(company.id), eq(invites.email, input.email)))
    .limit(1);
  if (waiting) throw conflict(`An invitation for ${input.email} to join ${companyName} is already waiting. Withdraw it first to send a new one.`);
  const token = createToken();
  const [invite] = await ctx.db
    .insert(invites)
    .values({
      tokenHash: hashToken(token),
      purpose: 'company_member',
      companyId: company.id,
      roles: [input.role],
      email: input.email,
      sentTo: input.email,
      name: input.name,
      expiresAt: new Date(Date.now() + inviteLifetimeMs),
    })
    .returning();
  if (!invite) throw new Error('invite insert returned no row');
  await queueEmail(ctx.db, {
    to: input.email,
    kind: 'company_member_invite',
    ...mailTemplates.companyMemberInvite.render({
      name: input.name,
      companyName: company.name,
      role: input.role,
      inviterName: inviter.name,
      hasAccount: existing !== null,
      link: `${ctx.config.publicUrl}/claim/${token}`,
    }),
  });
  await appendAuditEvent(ctx, {
    action: 'title_company.member_invited',
    data: {
      companyId: company.id,
      companyName: company.name,
      inviteId: invite.id,
      name: input.name,
      email: input.email,
      role: input.role,
      hasAccount: existing !== null,
    },
  });
  const as = input.role === 'title' ? 'title staff' : 'an agent';
  return { agent: toInvitedAgent(invite), message: `We emailed ${input.email} an invitation to join ${companyName} as ${as}.` };
}

/**
 * POST /api/title-companies/{id}/agents: the company's title staff invite agents; an administrator
 * may also invite title staff.
 */
export async function inviteAgent(ctx: Ctx, companyId: string, input: z.output<typeof inviteAgentInputSchema>) {
  return ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const access = await getCompanyAccess(txCtx, companyId, { forUpdate: true });
    requireManager(access, managersOnly);
    requireOpen(access.company);
    if (input.role === 'title' && access.standing !== 'admin') throw forbidden('Only an administrator may invite title staff; invite them as an agent.');
    return inviteMember(txCtx, access.company, input);
  });
}

/**
 * Takes the company roles off an account that belongs to no company any more (an account left
 * with no role is a signer). Returns the roles before and after, or null when nothing changed.
 */
export async function stripCompanyRoles(db: DbOrTx, userId: string): Promise<{ before: string[]; after: string[] } | null> {
  const [other] = await db
    .select({ companyId: titleCompanyMembers.companyId })
    .from(titleCompanyMembers)
    .where(eq(titleCompanyMembers.userId, userId))
    .limit(1);
  if (other) return null;
  const [user] = await db.select({ roles: users.roles }).from(users).where(eq(users.id, userId)).for('update');
  if (!user || !user.roles.some((role) => companyRoles.includes(role))) return null;
  const kept = user.roles.filter((role) => !companyRoles.includes(role));
  const after = kept.length > 0 ? kept : ['signer'];
  await db.update(users).set({ roles: after, updatedAt: new Date() }).where(eq(users.id, userId));
  return { before: user.roles, after };
}

/**
 * Makes the person who used a company invitation a member of its company, with the invitation's
 * role on their account too, in the transaction that used it. A company closed (or not approved)
 * since the invitation was sent takes no one: the link is then invalid.
 */
/**
 * Locks (shared) the company an invitation joins, before the invitation row is claimed. Closing a
 * company locks the company first and then its invitations; joining in the other order deadlocks on
 * PostgreSQL when both run at once.
 */
export async function lockCompanyBeforeJoining(ctx: TxCtx, invite: Pick<typeof invites.$inferSelect, 'purpose' | 'companyId'>): Promise<void> {
  if (invite.purpose !== 'company_member' || !invite.companyId) return;
  await ctx.db.select({ id: titleCompanies.id }).from(titleCompanies).where(eq(titleCompanies.id, invite.companyId)).for('share');
}

export async function joinCompanyByInvite(
  ctx: TxCtx,
  invite: Pick<typeof invites.$inferSelect, 'id' | 'companyId' | 'roles'>,
  member: { id: string; name: string; email: string },
): Promise<string> {
  const invalid = () => new AppError(404, 'invite_invalid', inviteMessages.invalid);
  if (!invite.companyId) throw invalid();
  // Shares the lock closing takes exclusively: a company is never joined while it closes.
  const [company] = await ctx.db.select().from(titleCompanies).where(eq(titleCompanies.id, invite.companyId)).for('share');
  if (!company || company.closedAt || company.approvalStatus !== 'approved') throw invalid();
  const role: CompanyRole = invite.roles.includes('title') ? 'title' : 'title_agent';
  await ctx.db.insert(titleCompanyMembers).values({ companyId: company.id, userId: member.id, role }).onConflictDoNothing();
  await ctx.db
    .update(users)
    .set({ roles: sql`array_append(${users.roles}, ${role}::text)`, updatedAt: new Date() })
    .where(and(eq(users.id, member.id), sql`not (${role}::text = any(${users.roles}))`));
  await appendAuditEvent(ctx, {
    action: 'title_company.member_joined',
    data: { companyId: company.id, companyName: company.name, inviteId: invite.id, userId: member.id, name: member.name, email: member.email, role },
  });
  return company.id;
}

/**
 * DELETE /api/title-companies/agents/{id}: the company's title staff or an administrator remove a
 * member (by membership id) or withdraw an invitation (by its id). A removed member loses the
 * company's jobs at once (the job_access triggers), and the company roles when they work for no
 * other company; their open tabs are told after the commit. Title staff cannot leave their company
 * without title staff.
 */
export async function removeAgent(ctx: Ctx, id: string): Promise<{ ok: true; message: string }> {
  const removed = await ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const [member] = await tx
      .select({ membership: titleCompanyMembers, name: users.name, email: users.email })
      .from(titleCompanyMembers)
      .innerJoin(users, eq(users.id, titleCompanyMembers.userId))
      .where(eq(titleCompanyMembers.id, id))
      .limit(1);
    if (member) {
      const access = await getCompanyAccess(txCtx, member.membership.companyId, { forUpdate: true, notFound: agentNotFound });
      requireManager(access, managersOnly);
      const { company } = access;
      if (access.standing !== 'admin' && member.membership.role === 'title') {
        const [otherStaff] = await tx
          .select({ userId: titleCompanyMembers.userId })
          .from(titleCompanyMembers)
          .where(and(eq(titleCompanyMembers.companyId, company.id), eq(titleCompanyMembers.role, 'title'), ne(titleCompanyMembers.id, id)))
          .limit(1);
        if (!otherStaff) {
          throw conflict(
            member.membership.userId === access.userId
              ? `You are the last title staff member of ${toSingleLine(company.name)}, so you cannot leave it; ask an administrator to add another one first.`
              : `${toSingleLine(member.name)} is the last title staff member of ${toSingleLine(company.name)}.`,
          );
        }
      }
      await tx.delete(titleCompanyMembers).where(eq(titleCompanyMembers.id, id));
      const roles = await stripCompanyRoles(tx, member.membership.userId);
      await appendAuditEvent(txCtx, {
        action: 'title_company.member_removed',
        data: {
          companyId: company.id,
          companyName: company.name,
          membershipId: id,
          userId: member.membership.userId,
          name: member.name,
          email: member.email,
          role: member.membership.role,
          rolesBefore: roles?.before ?? null,
          rolesAfter: roles?.after ?? null,
        },
      });
      return { userId: member.membership.userId, message: `${toSingleLine(member.name)} no longer works for ${toSingleLine(company.name)}.` };
    }
    const findInvite = (lock: boolean) => {
      const query = tx
        .select()
        .from(invites)
        .where(and(eq(invites.id, id), eq(invites.purpose, 'company_member')))
        .limit(1);
      return lock ? query.for('update') : query;
    };
    const [found] = await findInvite(false);
    if (!found?.companyId || found.revokedAt) throw agentNotFound();
    // The company first, then the invitation: the order an accept takes them in (invites.service.ts),
    // so a withdrawal racing an accept waits for it instead of deadlocking on PostgreSQL.
    const access = await getCompanyAccess(txCtx, found.companyId, { forUpdate: true, notFound: agentNotFound });
    requireManager(access, managersOnly);
    const [invite] = await findInvite(true);
    if (!invite?.companyId || invite.revokedAt) throw agentNotFound();
    const who = toSingleLine(invite.name ?? invite.email ?? 'The invitee');
    if (invite.usedAt) throw conflict(`${who} already accepted this invitation; remove them from the company’s people instead.`);
    await tx.update(invites).set({ revokedAt: new Date() }).where(eq(invites.id, id));
    await appendAuditEvent(txCtx, {
      action: 'title_company.invite_revoked',
      data: {
        companyId: access.company.id,
        companyName: access.company.name,
        inviteId: id,
        name: invite.name,
        email: invite.email,
        role: invite.roles[0] ?? null,
      },
    });
    return { userId: null, message: `The invitation of ${who} to join ${toSingleLine(access.company.name)} no longer works.` };
  });
  if (removed.userId) {
    await ctx.sessionCache.invalidateUser(removed.userId);
    await announceToUsers(ctx, [removed.userId], { type: 'access-changed' });
  }
  return { ok: true, message: removed.message };
}
