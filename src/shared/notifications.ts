import { z } from 'zod';
import { singleLineTextSchema } from './text.ts';

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
/** The kind is one line of text: a NUL could not be stored (PostgreSQL text cannot hold it) and answered 500. */
export const dismissNotificationInputSchema = z.object({
  jobId: z.uuid({ message: 'jobId must be a UUID.' }),
  kind: singleLineTextSchema({ label: 'The kind', max: 60, requiredMessage: 'Name the kind of item to dismiss.' }),
});
