import { randomUUID } from 'node:crypto';
import { and, desc, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import type { Role } from '#shared/roles.ts';
import { auditEvents, emailOutbox, titleCompanies, titleCompanyMembers } from '#server/db/schema/index.ts';
import type { TestApp, TestUser } from './create-test-app.ts';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface TestCompany {
  id: string;
  name: string;
  /** Its title staff member, who manages it. */
  staff: TestUser;
  /** One of its agents. */
  agent: TestUser;
}

/**
 * Title company helpers over one test app: approved companies with a title staff member and an
 * agent written straight to the database (what the tests of other routes start from), calls with
 * any method as a person signed in once, and the mail and audit the company routes leave.
 */
export function createCompanyKit(t: TestApp) {
  let counter = 0;

  async function call(user: TestUser | null, method: Method, url: string, payload?: unknown) {
    const headers = user ? await t.headersFor(user) : {};
    return t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
  }

  /** An approved, open company in Virginia (unless told otherwise) with one title staff member and one agent. */
  async function createCompany(options: { name?: string; city?: string; state?: string } = {}): Promise<TestCompany> {
    counter += 1;
    const name = options.name ?? `Fixture Title ${counter} ${randomUUID().slice(0, 6)}`;
    const [company] = await t.db
      .insert(titleCompanies)
      .values({ name, city: options.city ?? 'Richmond', state: options.state ?? 'VA', approvalStatus: 'approved', approvedAt: new Date() })
      .returning();
    if (!company) throw new Error('company insert returned no row');
    const staff = await t.createUser({ roles: ['title'], name: `Tia Title ${counter}` });
    const agent = await t.createUser({ roles: ['title_agent'], name: `Alex Agent ${counter}` });
    await addMember(company.id, staff, 'title');
    await addMember(company.id, agent, 'title_agent');
    return { id: company.id, name, staff, agent };
  }

  async function addMember(companyId: string, user: TestUser, role: 'title' | 'title_agent') {
    const [row] = await t.db.insert(titleCompanyMembers).values({ companyId, userId: user.id, role }).returning();
    if (!row) throw new Error('member insert returned no row');
    return row.id;
  }

  async function membershipId(companyId: string, userId: string): Promise<string> {
    const [row] = await t.db
      .select({ id: titleCompanyMembers.id })
      .from(titleCompanyMembers)
      .where(and(eq(titleCompanyMembers.companyId, companyId), eq(titleCompanyMembers.userId, userId)));
    if (!row) throw new Error('no such membership');
    return row.id;
  }

  /** One active account of each role, for the role matrix. */
  async function onePerRole(roles: readonly Role[]): Promise<Array<[Role, TestUser]>> {
    return Promise.all(roles.map(async (role) => [role, await t.createUser({ roles: [role] })] as [Role, TestUser]));
  }

  /** The mail of one kind sent to an address, newest first. */
  const mailTo = (address: string, kind: string) =>
    t.db
      .select()
      .from(emailOutbox)
      .where(and(eq(emailOutbox.toAddress, address.toLowerCase()), eq(emailOutbox.kind, kind)))
      .orderBy(desc(emailOutbox.createdAt));

  /** The /claim/{token} of the newest invitation to a company emailed to an address. */
  async function invitationTokenFor(address: string): Promise<string> {
    const [mail] = await mailTo(address, 'company_member_invite');
    const token = mail?.textBody.match(new RegExp(`${t.config.publicUrl}/claim/([\\w-]+)`))?.[1];
    if (!token) throw new Error(`no company invitation was emailed to ${address}`);
    return token;
  }

  /** The account-scope audit events of one action about one company. */
  async function auditOf(action: string, companyId: string) {
    const rows = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, action), eq(auditEvents.scope, 'account')));
    return rows.filter((row) => (row.data as { companyId?: string }).companyId === companyId);
  }

  async function expectStatus<Response extends { statusCode: number; body: string }>(response: Promise<Response>, status: number): Promise<Response> {
    const res = await response;
    expect(res.statusCode, res.body).toBe(status);
    return res;
  }

  return { call, createCompany, addMember, membershipId, onePerRole, mailTo, invitationTokenFor, auditOf, expectStatus };
}
