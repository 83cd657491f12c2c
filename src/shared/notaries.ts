import { z } from 'zod';

export const pendingNotarySchema = z.object({
  userId: z.string(),
  name: z.string(),
  email: z.string(),
  commissionState: z.string(),
  commissionNumber: z.string(),
  commissionExpiresOn: z.string(),
  county: z.string(),
  approvalStatus: z.enum(['pending', 'approved']),
  createdAt: z.string(),
});
export type PendingNotary = z.infer<typeof pendingNotarySchema>;
export const notaryListSchema = z.object({ items: z.array(pendingNotarySchema) });
