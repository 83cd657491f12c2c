import { z } from 'zod';

export const auditEventSchema = z.object({
  id: z.string(),
  action: z.string(),
  actorId: z.string().nullable(),
  actorName: z.string().nullable(),
  ipAddress: z.string().nullable(),
  userAgent: z.string().nullable(),
  data: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
  hash: z.string(),
});
export type AuditEvent = z.infer<typeof auditEventSchema>;
export const auditTrailSchema = z.object({
  events: z.array(auditEventSchema),
  verification: z.object({ isValid: z.boolean(), eventCount: z.number().int(), firstBrokenEventId: z.string().nullable() }),
});
export const auditAssetInputSchema = z.object({ tag: z.string().trim().min(1, { message: 'Give the asset a tag.' }).max(60), docId: z.uuid({ message: 'docId must be a UUID.' }) });
