import { z } from 'zod';
import { singleLineTextSchema } from './text.ts';

/**
 * Every action the server records. appendAuditEvent takes only these, and audit-sentences.ts must
 * say each one in words: a new action without a sentence does not typecheck.
 */
export const auditActions = [
  'job.created',
  'job.updated',
  'job.status_changed',
  'job.notary_replaced',
  'job.participants_notified',
  'job.notary_notified',
  'participant.added',
  'participant.updated',
  'participant.removed',
  'participant.reminded',
  'participants.reminded',
  'participant.id_bypass_changed',
  'participant.access_requested',
  'invite.claimed',
  'document.uploaded',
  'document.updated',
  'document.deleted',
  'documents.reordered',
  'document.completed',
  'document.notarized',
  'audit_asset.added',
  'audit_asset.removed',
  'field.placed',
  'field.removed',
  'field.filled',
  'signature.saved',
  'initials.saved',
  'user.password_set_by_admin',
  'user.password_reset',
  'user.email_verified',
  'mfa.totp_enabled',
  'mfa.backup_codes_generated',
  'notary.certificate_uploaded',
  'notary.certificate_removed',
  'notary.approved',
  'notary.rejected',
  'notary.profile_updated',
  'notary.profile_file_uploaded',
  'notary.profile_file_deleted',
  'notary.signature_removed',
  'notary.initials_removed',
  'notary.activated',
  'notary.deactivated',
  'title_company.approved',
  'title_company.rejected',
  'mail.read',
  'video.joined',
  'video.admitted',
  'video.denied',
  'video.started',
  'video.finalized',
  'recording.started',
  'recording.stopped',
  'recording.segment_saved',
  'identity.started',
  'identity.credential_checked',
  'identity.selfie_received',
  'identity.kba_started',
  'identity.kba_answered',
  'identity.ready',
  'identity.reviewed',
  'identity.resume_link_created',
  'identity.expired',
  'identity.reset',
  'identity.purged',
  'journal.finalized',
  'journal.marked_test',
  'journal.addendum_added',
  'journal.read_by_admin',
  'journal.entry_deleted',
] as const;
export type AuditAction = (typeof auditActions)[number];

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
