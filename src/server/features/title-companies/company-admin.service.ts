import { and, asc, eq, isNull, ne, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { createTitleCompanyInputSchema, TitleCompany, updateTitleCompanyInputSchema } from '#shared/title-companies.ts';
import { getUsStateName } from '#shared/us-states.ts';
import { toSingleLine } from '#shared/text.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { invites, titleCompanies, titleCompanyMembers, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError, badRequest, conflict, unauthorized } from '#server/lib/errors.ts';
import { stopWebhooksOfClosedCompany } from '#server/features/integrations/webhook-events.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { isUniqueViolation } from '#server/features/auth/users.ts';
import { announceToUsers } from '#server/features/jobs/access-change.ts';
import { findNotaryStanding } from '#server/features/notaries/notary-eligibility.ts';
import {
  companyNotFound,
  describeCompany,
  getCompanyAccess,
  requireManager,
  requireOpen,
  selectCompanies,
  toDefaultNotary,
  type CompanyRow,
} from './company-access.ts';
import { inviteMember, stripCompanyRoles } from './company-agents.service.ts';

type Output<T extends z.ZodType> = z.output<T>;

export async function getCompany(ctx: Ctx, companyId: string): Promise<TitleCompany> {
  const access = await getCompanyAccess(ctx, companyId);
  return describeCompany(ctx.db, companyId, access.standing);
}

export async function getDefaultNotary(ctx: Ctx, companyId: string) {
  await getCompanyAccess(ctx, companyId);
  const [row] = await selectCompanies(ctx.db).where(eq(titleCompanies.id, companyId)).limit(1);
  if (!row) throw companyNotFound();
  return { notary: toDefaultNotary(row) };
}

function duplicateName(name: string, state: string | null) {
  return conflict(`A title company named “${toSingleLine(name)}” already works in ${state ? getUsStateName(state) : 'that state'}. Choose another name.`);
}

/** Finds a working company of the same name (any case) in the same state, other than this one. */
async function assertNameFree(db: DbOrTx, name: string, state: string | null, exceptId?: string): Promise<void> {
  if (!state) return;
  const [other] = await db
    .select({ id: titleCompanies.id })
    .from(titleCompanies)
    .where(
      and(
        sql`lower(${titleCompanies.name}) = lower(${name})`,
        eq(titleCompanies.state, state),
        isNull(titleCompanies.closedAt),
        ne(titleCompanies.approvalStatus, 'rejected'),
        exceptId ? ne(titleCompanies.id, exceptId) : undefined,
      ),
    )
    .limit(1);
  if (other) throw duplicateName(name, state);
}

/** An optional one-line field: an empty string clears it, as null does. */
const orNull = (value: string | null | undefined) => (value ? value : null);

/**
 * POST /api/title-companies: an administrator creates a working (approved) company; its first
 * title staff member, when named, is invited by email to manage it.
 */
export async function createCompany(ctx: Ctx, input: Output<typeof createTitleCompanyInputSchema>): Promise<TitleCompany> {
  const admin = ctx.user;
  if (!admin) throw unauthorized();
  let companyId: string;
  try {
    companyId = await ctx.db.transaction(async (tx) => {
      const txCtx = { ...ctx, db: tx };
      await assertNameFree(tx, input.name, input.state);
      const now = new Date();
      const [company] = await tx
        .insert(titleCompanies)
        .values({
          name: input.name,
          city: input.city,
          state: input.state,
          addressLine: orNull(input.addressLine),
          phone: orNull(input.phone),
          contactEmail: orNull(input.contactEmail),
          approvalStatus: 'approved',
          approvedAt: now,
          approvedBy: admin.id,
        })
        .returning();
      if (!company) throw new Error('title company insert returned no row');
      await appendAuditEvent(txCtx, {
        action: 'title_company.created',
        data: { companyId: company.id, companyName: company.name, after: companyFacts(company), ownerEmail: input.owner?.email ?? null },
      });
      if (input.owner) await inviteMember(txCtx, company, { ...input.owner, role: 'title' });
      return company.id;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicateName(input.name, input.state);
    throw error;
  }
  ctx.log.info({ event: 'title_company.created', companyId, by: admin.id }, 'title company created');
  return describeCompany(ctx.db, companyId, 'admin');
}

/** What an audit event keeps of a company's facts, before and after a change. */
function companyFacts(company: CompanyRow) {
  return {
    name: company.name,
    city: company.city,
    state: company.state,
    addressLine: company.addressLine,
    phone: company.phone,
    contactEmail: company.contactEmail,
    defaultNotaryId: company.defaultNotaryId,
    agentsSeePrices: company.agentsSeePrices,
  };
}

const factWords: Record<keyof ReturnType<typeof companyFacts>, string> = {
  name: 'name',
  city: 'city',
  state: 'state',
  addressLine: 'street address',
  phone: 'phone',
  contactEmail: 'contact email',
  defaultNotaryId: 'default notary',
  agentsSeePrices: 'whether agents see prices',
};

/**
 * A default notary must be able to take work now: a notary's account, active, with an approved and
 * active commission profile in force (notary-eligibility.ts). Anything else is a 400 with the reason.
 */
async function assertDefaultNotary(db: DbOrTx, notaryId: string): Promise<{ id: string; name: string }> {
  const standing = await findNotaryStanding(db, notaryId);
  if (!standing || !standing.notary.roles.includes('notary')) throw badRequest('Choose an approved, active notary as the default notary.');
  if (standing.blocker) throw badRequest(`${standing.blocker} Choose another default notary.`);
  return { id: standing.notary.id, name: standing.notary.name };
}

/** PUT /api/title-companies/{id}: the company's title staff or an administrator change its facts and default notary. */
export async function updateCompany(ctx: Ctx, companyId: string, input: Output<typeof updateTitleCompanyInputSchema>): Promise<TitleCompany> {
  let standing: Awaited<ReturnType<typeof getCompanyAccess>>['standing'];
  let nextName = input.name;
  let nextState: string | null | undefined = input.state;
  try {
    standing = await ctx.db.transaction(async (tx) => {
      const txCtx = { ...ctx, db: tx };
      const access = await getCompanyAccess(txCtx, companyId, { forUpdate: true });
      requireManager(access);
      const { company } = access;
      requireOpen(company);
      const changes: Partial<CompanyRow> = {};
      if (input.name !== undefined) changes.name = input.name;
      if (input.city !== undefined) changes.city = input.city;
      if (input.state !== undefined) changes.state = input.state;
      if (input.addressLine !== undefined) changes.addressLine = orNull(input.addressLine);
      if (input.phone !== undefined) changes.phone = orNull(input.phone);
      if (input.contactEmail !== undefined) changes.contactEmail = orNull(input.contactEmail);
      if (input.agentsSeePrices !== undefined) changes.agentsSeePrices = input.agentsSeePrices;
      let notaryName: string | null | undefined;
      if (input.defaultNotaryId !== undefined) {
        changes.defaultNotaryId = input.defaultNotaryId;
        if (input.defaultNotaryId && input.defaultNotaryId !== company.defaultNotaryId)
          notaryName = (await assertDefaultNotary(tx, input.defaultNotaryId)).name;
      }
      const before = companyFacts(company);
      const after = companyFacts({ ...company, ...changes });
      const changed = (Object.keys(before) as Array<keyof typeof before>).filter((key) => before[key] !== after[key]);
      nextName = after.name;
      nextState = after.state;
      if (changed.length === 0) return access.standing;
      if (changed.includes('name') || changed.includes('state')) await assertNameFree(tx, after.name, after.state, companyId);
      await tx.update(titleCompanies).set(changes).where(eq(titleCompanies.id, companyId));
      await appendAuditEvent(txCtx, {
        action: 'title_company.updated',
        data: {
          companyId,
          companyName: after.name,
          fields: changed.map((key) => factWords[key]),
          before: Object.fromEntries(changed.map((key) => [key, before[key]])),
          after: Object.fromEntries(changed.map((key) => [key, after[key]])),
          ...(notaryName !== undefined ? { defaultNotaryName: notaryName } : {}),
        },
      });
      return access.standing;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicateName(nextName ?? '', nextState ?? null);
    throw error;
  }
  return describeCompany(ctx.db, companyId, standing);
}

/**
 * DELETE /api/title-companies/{id}: an administrator closes a company, never deletes it (decision
 * 043). Its members lose it at once (their rows go, and with them their access to its jobs; the
 * audit event names them), its open invitations stop working, and a member who works for no other
 * company loses the company roles. Its jobs and their history stay, for administrators and the
 * jobs' notaries and participants.
 */
export async function closeCompany(ctx: Ctx, companyId: string): Promise<{ ok: true; message: string }> {
  const admin = ctx.user;
  if (!admin) throw unauthorized();
  const { company, members } = await ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const { company } = await getCompanyAccess(txCtx, companyId, { forUpdate: true });
    if (company.closedAt) throw new AppError(409, 'already_closed', `${company.name} is already closed.`);
    const members = await tx
      .select({ membershipId: titleCompanyMembers.id, userId: users.id, name: users.name, email: users.email, role: titleCompanyMembers.role })
      .from(titleCompanyMembers)
      .innerJoin(users, eq(users.id, titleCompanyMembers.userId))
      .where(eq(titleCompanyMembers.companyId, companyId))
      .orderBy(asc(users.name), asc(users.id));
    const closedAt = new Date();
    await tx.update(titleCompanies).set({ closedAt, closedBy: admin.id }).where(eq(titleCompanies.id, companyId));
    await tx.delete(titleCompanyMembers).where(eq(titleCompanyMembers.companyId, companyId));
    // Its systems hear nothing more of the jobs it leaves behind (decision 055).
    const webhooks = await stopWebhooksOfClosedCompany(tx, companyId, closedAt);
    const revoked = await tx
      .update(invites)
      .set({ revokedAt: new Date() })
      .where(and(eq(invites.companyId, companyId), eq(invites.purpose, 'company_member'), isNull(invites.usedAt), isNull(invites.revokedAt)))
      .returning({ id: invites.id });
    const rolesChanged: Array<{ userId: string; before: string[]; after: string[] }> = [];
    for (const member of members) {
      const change = await stripCompanyRoles(tx, member.userId);
      if (change) rolesChanged.push({ userId: member.userId, ...change });
    }
    await appendAuditEvent(txCtx, {
      action: 'title_company.closed',
      data: {
        companyId,
        companyName: company.name,
        members: members.map(({ membershipId, userId, name, email, role }) => ({ membershipId, userId, name, email, role })),
        revokedInvitationCount: revoked.length,
        rolesChanged,
        disabledWebhookEndpoints: webhooks.endpoints,
      },
    });
    return { company, members };
  });
  const userIds = members.map((member) => member.userId);
  await Promise.all(userIds.map((userId) => ctx.sessionCache.invalidateUser(userId)));
  await announceToUsers(ctx, userIds, { type: 'access-changed' });
  ctx.log.info({ event: 'title_company.closed', companyId, by: admin.id, memberCount: members.length }, 'title company closed');
  const people =
    members.length === 0 ? 'it had no members' : members.length === 1 ? 'its 1 member lost access to it' : `its ${members.length} members lost access to it`;
  return {
    ok: true,
    message: `${toSingleLine(company.name)} is closed: ${people}. Its jobs stay readable to administrators and the jobs’ participants.`,
  };
}
