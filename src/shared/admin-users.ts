import { z } from 'zod';
import { approvalStatusSchema, emailSchema } from './auth.ts';
import { roleSchema, roles } from './roles.ts';
import { searchTextSchema, singleLineTextSchema } from './text.ts';

/** A role as an administrator names it in a call: an unknown one is refused with the list of roles. */
const roleChoiceSchema = z.enum(roles, { message: `Choose one of the roles: ${roles.join(', ')}.` });
const statusChoiceSchema = z.enum(approvalStatusSchema.options, { message: `Choose one of the statuses: ${approvalStatusSchema.options.join(', ')}.` });
/** The person's name as the administrator types it (the registration form's rules, in the third person). */
const nameMissing = 'Enter the person’s full name.';
const accountNameSchema = z
  .string({ error: (issue) => (issue.input === undefined ? nameMissing : 'The name must be text.') })
  .pipe(singleLineTextSchema({ label: 'The name', max: 120, requiredMessage: nameMissing }));
const emailMissing = 'Enter the person’s email address.';
const accountEmailSchema = z
  .string({ error: (issue) => (issue.input === undefined ? emailMissing : 'The email address must be text.') })
  .max(254, { message: 'An email address has at most 254 characters.' })
  .pipe(emailSchema);

/** An account as the administrators' Users page shows it; never a password, hash or secret. */
export const adminUserSchema = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  roles: z.array(roleSchema),
  status: approvalStatusSchema,
  emailVerifiedAt: z.string().nullable(),
  lastLoginAt: z.string().nullable(),
  createdAt: z.string(),
  /** Whether the person has set a password yet (an account created by an administrator has none until they do). */
  hasPassword: z.boolean(),
  companies: z.array(z.object({ id: z.string(), name: z.string(), role: z.enum(['title', 'title_agent']) })),
  hasSignature: z.boolean(),
  hasInitials: z.boolean(),
});
export type AdminUser = z.infer<typeof adminUserSchema>;

/** GET /api/admin/users?q&role&status&page&pageSize: by name or email, newest first. */
export const adminUserQuerySchema = z.object({
  q: searchTextSchema(200).optional(),
  role: roleChoiceSchema.optional(),
  status: statusChoiceSchema.optional(),
  page: z.coerce
    .number({ message: 'The page must be a whole number.' })
    .int({ message: 'The page must be a whole number.' })
    .min(1, { message: 'Pages start at 1.' })
    .max(100_000, { message: 'Pages go up to 100000.' })
    .default(1),
  pageSize: z.coerce
    .number({ message: 'The page size must be a whole number.' })
    .int({ message: 'The page size must be a whole number.' })
    .min(1, { message: 'Ask for at least 1 at a time.' })
    .max(100, { message: 'Ask for at most 100 at a time.' })
    .default(20),
});
export type AdminUserQuery = z.input<typeof adminUserQuerySchema>;
export const adminUserPageSchema = z.object({ items: z.array(adminUserSchema), total: z.number().int(), page: z.number().int(), pageSize: z.number().int() });

/** Roles an administrator gives in the Users page; notary approval stays with the notary profile. */
export const assignableRoles = roles;
const rolesSchema = z
  .array(roleChoiceSchema, { message: 'Choose the roles as a list.' })
  .min(1, { message: 'Give the account at least one role.' })
  .max(roles.length, { message: `Choose at most ${roles.length} roles.` })
  .transform((list) => [...new Set(list)]);

/** POST /api/admin/users: the account is created active and the person sets their own password from an emailed link. */
export const createAdminUserInputSchema = z.object({ name: accountNameSchema, email: accountEmailSchema, roles: rolesSchema.default(['signer']) });
export type CreateAdminUserInput = z.input<typeof createAdminUserInputSchema>;

/** PUT /api/admin/users/{id}: a new email must be confirmed again by its owner; status switches an account on or off. */
export const updateAdminUserInputSchema = z
  .object({
    name: accountNameSchema.optional(),
    email: accountEmailSchema.optional(),
    status: z.enum(['active', 'disabled'], { message: 'Choose active or disabled.' }).optional(),
  })
  .refine((value) => Object.values(value).some((field) => field !== undefined), { message: 'Nothing to change.' });
export type UpdateAdminUserInput = z.input<typeof updateAdminUserInputSchema>;

export const adminUserResponseSchema = z.object({ user: adminUserSchema, message: z.string() });

export const userRolesSchema = z.object({ roles: z.array(roleSchema) });
export const addRoleInputSchema = z.object({ role: roleChoiceSchema });
/** DELETE /api/admin/users/{id}/roles/{role}. */
export const roleParamSchema = roleChoiceSchema;
export const userRolesResponseSchema = z.object({ roles: z.array(roleSchema), message: z.string() });

/** GET /api/admin/users/{id}/audit: what administrators changed on this account, newest first. */
export const accountAuditSchema = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      action: z.string(),
      actorId: z.string().nullable(),
      actorName: z.string().nullable(),
      data: z.record(z.string(), z.unknown()),
      createdAt: z.string(),
    }),
  ),
});
