import { z } from 'zod';

export const roles = ['admin', 'notary', 'title', 'title_agent', 'billing', 'finance', 'observer', 'signer', 'witness'] as const;
export const roleSchema = z.enum(roles);
export type Role = z.infer<typeof roleSchema>;

/** The elevated roles: they skip the instant-notary flows after sign-in. */
export const elevatedRoles: readonly Role[] = ['admin', 'notary', 'title', 'title_agent', 'billing', 'finance', 'observer'];

/** Roles whose sidebar shows Dashboard Home and Help. */
export const sidebarNavigationRoles: readonly Role[] = ['signer', 'admin', 'notary', 'title', 'title_agent', 'witness', 'observer', 'billing', 'finance'];

/** Roles that go online to be offered instant jobs (decision 051): notaries, and the witnesses the platform provides. */
export const onlineRoles: readonly Role[] = ['notary', 'witness'];

/** Roles that may create a job (POST /api/jobs); the others (billing, finance, observers, witnesses) are not offered New Signing Request. */
export const jobCreatorRoles: readonly Role[] = ['admin', 'title', 'title_agent', 'notary', 'signer'];

/** Whether New Signing Request is offered: the same list POST /api/jobs admits. */
export function canCreateJobs(user: RoleBearer | null | undefined): boolean {
  return hasAnyRole(user, jobCreatorRoles);
}

export const roleLabels: Record<Role, string> = {
  admin: 'Administrator',
  notary: 'Notary',
  title: 'Title company',
  title_agent: 'Title agent',
  billing: 'Billing',
  finance: 'Finance',
  observer: 'Observer',
  signer: 'Signer',
  witness: 'Witness',
};

export interface RoleBearer {
  roles?: readonly string[] | null;
  role?: string | null;
}

function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (roles as readonly string[]).includes(value);
}

/** The roles of a user record that may carry either `roles` (list) or `role` (single). */
export function getUserRoles(user: RoleBearer | null | undefined): Role[] {
  if (!user) return [];
  const listed = Array.isArray(user.roles) ? user.roles.filter(isRole) : [];
  if (listed.length > 0) return [...new Set(listed)];
  return isRole(user.role) ? [user.role] : [];
}

/** The effective role: admin if present, else notary, else the first role, else signer. */
export function getEffectiveRole(user: RoleBearer | null | undefined): Role {
  const userRoles = getUserRoles(user);
  if (userRoles.includes('admin')) return 'admin';
  if (userRoles.includes('notary')) return 'notary';
  return userRoles[0] ?? 'signer';
}

export function hasElevatedRole(user: RoleBearer | null | undefined): boolean {
  return getUserRoles(user).some((role) => elevatedRoles.includes(role));
}

export function hasAnyRole(user: RoleBearer | null | undefined, allowed: readonly Role[]): boolean {
  return getUserRoles(user).some((role) => allowed.includes(role));
}

/**
 * Every role's home is the dashboard; the dashboard shows what that role works on
 * (decision recorded in docs/decisions/002-role-homes.md).
 */
export function getRoleHome(_role: Role): string {
  return '/dashboard';
}
