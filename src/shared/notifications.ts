import { z } from 'zod';

export const pendingJobItemSchema = z.object({
  jobId: z.string(),
  title: z.string(),
  kind: z.string(),
  message: z.string(),
  isBlocking: z.boolean(),
  at: z.string(),
});
export type PendingJobItem = z.infer<typeof pendingJobItemSchema>;
export const pendingJobsSchema = z.object({ ok: z.literal(true), items: z.array(pendingJobItemSchema), has_blocking: z.boolean() });
export const dismissNotificationInputSchema = z.object({ jobId: z.uuid({ message: 'jobId must be a UUID.' }), kind: z.string().trim().min(1).max(60) });
