import { z } from 'zod';
import { emailSchema, personNameSchema } from './auth.ts';
import { documentTagSchema } from './documents.ts';
import { notarizationTypeSchema, notaryOptionSchema } from './jobs.ts';
import { plainTextSchema, searchTextSchema, singleLineTextSchema } from './text.ts';
import { usStateCodes } from './us-states.ts';

/** An application awaiting approval, as the administrators' approvals list shows it. */
export const titleCompanySummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  approvalStatus: z.enum(['pending', 'approved', 'rejected']),
  createdAt: z.string(),
  ownerName: z.string().nullable(),
  ownerEmail: z.string().nullable(),
});
export type TitleCompanySummary = z.infer<typeof titleCompanySummarySchema>;
export const titleCompanyListSchema = z.object({ items: z.array(titleCompanySummarySchema) });

/** Where a company stands: an application (pending, rejected), working (approved), or closed by an administrator. */
export const titleCompanyStatuses = ['pending', 'approved', 'rejected', 'closed'] as const;
export const titleCompanyStatusSchema = z.enum(titleCompanyStatuses, { message: 'Choose pending, approved, rejected or closed.' });
export type TitleCompanyStatus = z.infer<typeof titleCompanyStatusSchema>;
export const titleCompanyStatusLabels: Record<TitleCompanyStatus, string> = {
  pending: 'Waiting for approval',
  approved: 'Approved',
  rejected: 'Not approved',
  closed: 'Closed',
};

const stateSchema = z.enum(usStateCodes, { message: 'Choose a US state.' });
const optionalLine = (label: string, max: number) => singleLineTextSchema({ label, max }).nullable().optional();

/** The facts of a company its staff and administrators edit. Empty strings clear a field. */
const companyFields = {
  name: singleLineTextSchema({ label: 'The company name', max: 160, requiredMessage: 'Enter the company name.' }),
  city: singleLineTextSchema({ label: 'The city', max: 100, requiredMessage: 'Enter the city.' }),
  state: stateSchema,
  addressLine: optionalLine('The street address', 200),
  phone: optionalLine('The phone number', 40),
  contactEmail: emailSchema.nullable().optional(),
};

/** POST /api/title-companies: an administrator creates an approved company and may invite its first title staff member. */
export const createTitleCompanyInputSchema = z.object({
  ...companyFields,
  /** The company's first title staff member: invited by email to manage the company. */
  owner: z.object({ name: personNameSchema, email: emailSchema }).nullable().optional(),
});
export type CreateTitleCompanyInput = z.input<typeof createTitleCompanyInputSchema>;

/** PUT /api/title-companies/{id}: any of the company's facts, and its default notary (null clears it). */
export const updateTitleCompanyInputSchema = z
  .object({
    name: companyFields.name.optional(),
    city: companyFields.city.optional(),
    state: stateSchema.optional(),
    addressLine: companyFields.addressLine,
    phone: companyFields.phone,
    contactEmail: companyFields.contactEmail,
    defaultNotaryId: z.uuid({ message: 'Choose a notary.' }).nullable().optional(),
    /** Whether the company's agents see prices, charges and invoices (decision 049). */
    agentsSeePrices: z.boolean({ message: 'agentsSeePrices is true or false.' }).optional(),
  })
  .refine((value) => Object.values(value).some((field) => field !== undefined), { message: 'Nothing to change.' });
export type UpdateTitleCompanyInput = z.input<typeof updateTitleCompanyInputSchema>;

export const titleCompanySchema = z.object({
  id: z.string(),
  name: z.string(),
  status: titleCompanyStatusSchema,
  city: z.string().nullable(),
  state: z.string().nullable(),
  addressLine: z.string().nullable(),
  phone: z.string().nullable(),
  contactEmail: z.string().nullable(),
  defaultNotary: notaryOptionSchema.nullable(),
  agentsSeePrices: z.boolean(),
  /** Active title staff and agents. */
  memberCount: z.number().int(),
  createdAt: z.string(),
  approvedAt: z.string().nullable(),
  closedAt: z.string().nullable(),
  /** What the caller may do here: change the facts and the default notary, manage agents and job types (title staff, admins), close (admins). */
  permissions: z.object({ canEdit: z.boolean(), canManageAgents: z.boolean(), canClose: z.boolean() }),
});
export type TitleCompany = z.infer<typeof titleCompanySchema>;

const pageFields = {
  page: z.coerce.number().int().min(1, { message: 'Pages start at 1.' }).max(100_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(100, { message: 'Ask for at most 100 at a time.' }).default(20),
};

/** GET /api/title-companies (administrators): every company, newest first, by status and name. */
export const titleCompanyQuerySchema = z.object({ q: searchTextSchema(100).optional(), status: titleCompanyStatusSchema.optional(), ...pageFields });
export type TitleCompanyQuery = z.input<typeof titleCompanyQuerySchema>;
export const titleCompanyPageSchema = z.object({
  items: z.array(titleCompanySchema),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
});
export type TitleCompanyPage = z.infer<typeof titleCompanyPageSchema>;

/** GET /api/title-companies/search: approved, open companies by name, city or state, for signed-in staff. */
export const titleCompanySearchQuerySchema = z.object({ q: searchTextSchema(100).default(''), ...pageFields });
export const titleCompanySearchItemSchema = z.object({ id: z.string(), name: z.string(), city: z.string().nullable(), state: z.string().nullable() });
export const titleCompanySearchPageSchema = z.object({
  items: z.array(titleCompanySearchItemSchema),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
});

/** GET /api/title-companies/search/public: anyone; only what a company shows the world. */
export const publicTitleCompanySearchQuerySchema = z.object({ q: searchTextSchema(100).default('') });
export const publicTitleCompanySchema = z.object({ name: z.string(), city: z.string().nullable(), state: z.string().nullable() }).strict();
export const publicTitleCompanySearchSchema = z.object({ items: z.array(publicTitleCompanySchema) }).strict();

/** A company's people: title staff and agents, and invitations not yet accepted. */
export const companyMemberRoles = ['title', 'title_agent'] as const;
export const companyMemberRoleSchema = z.enum(companyMemberRoles, { message: 'Choose title staff or agent.' });
export const companyMemberRoleLabels: Record<(typeof companyMemberRoles)[number], string> = { title: 'Title staff', title_agent: 'Agent' };
export const companyAgentSchema = z.object({
  /** The membership's id, or the invitation's while it is not accepted; DELETE /agents/{id} takes either. */
  id: z.string(),
  userId: z.string().nullable(),
  name: z.string(),
  email: z.string(),
  role: companyMemberRoleSchema,
  status: z.enum(['active', 'invited']),
  /** When they joined, or when the invitation was sent. */
  since: z.string(),
  /** For an invitation: when its link stops working. */
  expiresAt: z.string().nullable(),
});
export type CompanyAgent = z.infer<typeof companyAgentSchema>;
export const companyAgentListSchema = z.object({ items: z.array(companyAgentSchema) });

/** POST /api/title-companies/{id}/agents: invite a person by email; admins may also invite title staff. */
export const inviteAgentInputSchema = z.object({ name: personNameSchema, email: emailSchema, role: companyMemberRoleSchema.default('title_agent') });
export type InviteAgentInput = z.input<typeof inviteAgentInputSchema>;
export const inviteAgentResponseSchema = z.object({ agent: companyAgentSchema, message: z.string() });

/** A company's named job template. */
export const maximumDefaultWitnesses = 4;
const jobTypeFields = {
  name: singleLineTextSchema({ label: 'The job type name', max: 120, requiredMessage: 'Name the job type.' }),
  notarizationType: notarizationTypeSchema,
  documentTags: z.array(documentTagSchema).max(10, { message: 'List at most 10 document tags.' }),
  witnessCount: z
    .number({ message: 'Give the number of witnesses as a whole number.' })
    .int({ message: 'Give the number of witnesses as a whole number.' })
    .min(0, { message: 'The number of witnesses cannot be negative.' })
    .max(maximumDefaultWitnesses, { message: `A job type asks for at most ${maximumDefaultWitnesses} witnesses.` }),
  instructions: plainTextSchema({ label: 'The instructions for the notary', max: 2000 }),
};
export const createJobTypeInputSchema = z.object({
  ...jobTypeFields,
  documentTags: jobTypeFields.documentTags.default([]),
  witnessCount: jobTypeFields.witnessCount.default(0),
  instructions: jobTypeFields.instructions.default(''),
});
export type CreateJobTypeInput = z.input<typeof createJobTypeInputSchema>;
export const updateJobTypeInputSchema = z
  .object({
    name: jobTypeFields.name.optional(),
    notarizationType: jobTypeFields.notarizationType.optional(),
    documentTags: jobTypeFields.documentTags.optional(),
    witnessCount: jobTypeFields.witnessCount.optional(),
    instructions: jobTypeFields.instructions.optional(),
  })
  .refine((value) => Object.values(value).some((field) => field !== undefined), { message: 'Nothing to change.' });
export type UpdateJobTypeInput = z.input<typeof updateJobTypeInputSchema>;
export const jobTypeSchema = z.object({
  id: z.string(),
  companyId: z.string(),
  name: z.string(),
  notarizationType: notarizationTypeSchema,
  documentTags: z.array(documentTagSchema),
  witnessCount: z.number().int(),
  instructions: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type JobType = z.infer<typeof jobTypeSchema>;
export const jobTypeListSchema = z.object({ items: z.array(jobTypeSchema) });

/** GET /api/title-companies/{id}/default-notary */
export const defaultNotarySchema = z.object({ notary: notaryOptionSchema.nullable() });

/** The companies the signed-in person works for (title staff and agents), for the Company page and job creation. */
export const myCompaniesSchema = z.object({ items: z.array(z.object({ id: z.string(), name: z.string(), role: companyMemberRoleSchema })) });
