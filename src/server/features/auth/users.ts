import { eq } from 'drizzle-orm';
import type { SessionUser } from '#shared/auth.ts';
import { getEffectiveRole, getUserRoles } from '#shared/roles.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { users } from '#server/db/schema/index.ts';

export type UserRow = typeof users.$inferSelect;

/** The user record the browser keeps in session storage, never the password hash. */
export function toSessionUser(row: UserRow): SessionUser {
  const roles = getUserRoles({ roles: row.roles });
  const role = getEffectiveRole({ roles });
  let pendingApproval: string | null = null;
  if (row.status === 'pending') pendingApproval = roles.includes('notary') ? 'notary' : roles.includes('title') ? 'title_company' : 'account';
  return {
    id: row.id,
    name: row.name,
    fullName: row.name,
    email: row.email,
    roles: roles.length > 0 ? roles : ['signer'],
    role,
    status: row.status,
    pendingApproval,
    emailVerified: row.emailVerifiedAt !== null,
  };
}

export async function findUserByEmail(db: DbOrTx, email: string): Promise<UserRow | null> {
  const rows = await db.select().from(users).where(eq(users.email, email.trim().toLowerCase())).limit(1);
  return rows[0] ?? null;
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The counter of failed sign-in attempts of one account: wrong passwords and wrong second-factor codes. */
export function accountFailuresKey(email: string): string {
  return `login:account:${normalizeEmail(email)}`;
}

/** PostgreSQL unique_violation, from node-postgres or PGlite (possibly wrapped by drizzle). */
export function isUniqueViolation(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth += 1) {
    if ((current as { code?: unknown }).code === '23505') return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
