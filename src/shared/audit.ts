import { z } from 'zod';
import { singleLineTextSchema } from './text.ts';

export const auditEventSchema = z.object({
  id: z.string(),
  action: z.string(),
  actorId: z.string().nullable(),
  actorName: z.string().nullable(),
  data: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
  /**
   * Only for the job's notary and administrators (decision 009): participants and the job's
   * creator see what happened and who did it, not where from. The hash goes with them, since it
   * covers the address and browser and would let them be guessed.
   */
  ipAddress: z.string().nullable().optional(),
  userAgent: z.string().nullable().optional(),
  hash: z.string().optional(),
});
export type AuditEvent = z.infer<typeof auditEventSchema>;
export const auditTrailSchema = z.object({
  events: z.array(auditEventSchema),
  verification: z.object({ isValid: z.boolean(), eventCount: z.number().int(), firstBrokenEventId: z.string().nullable() }),
});
export const auditAssetInputSchema = z.object({
  tag: singleLineTextSchema({ label: 'The tag', max: 60, requiredMessage: 'Give the asset a tag.' }),
  docId: z.uuid({ message: 'docId must be a UUID.' }),
});
