import { z } from 'zod';

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
