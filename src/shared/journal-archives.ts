import { z } from 'zod';
import { singleLineTextSchema } from './text.ts';

/**
 * The notary's own archive of one commission (decision 059, docs/ARCHIVE-FORMAT.md): every
 * finalized journal entry, sealed document, recording segment, audit trail and certificate in one
 * ZIP with a signed manifest, built in the background and downloaded with byte ranges.
 */

export const notaryArchiveStatuses = ['queued', 'building', 'ready', 'failed', 'expired'] as const;
export type NotaryArchiveStatus = (typeof notaryArchiveStatuses)[number];

export const notaryArchiveSchema = z.object({
  id: z.string(),
  notaryId: z.string(),
  commissionState: z.string(),
  commissionNumber: z.string(),
  status: z.enum(notaryArchiveStatuses),
  filesTotal: z.number().nullable(),
  filesDone: z.number(),
  bytesTotal: z.number().nullable(),
  bytesDone: z.number(),
  sizeBytes: z.number().nullable(),
  sha256: z.string().nullable(),
  failureReason: z.string().nullable(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  /** A ready archive's file is deleted then; null otherwise. */
  expiresAt: z.string().nullable(),
  /** Where the finished file is downloaded (null until it is ready). */
  downloadUrl: z.string().nullable(),
});
export type NotaryArchive = z.infer<typeof notaryArchiveSchema>;

/** A commission the notary's finalized journal entries were made under; `isCurrent` is the one on their profile. */
export const notaryCommissionSchema = z.object({
  state: z.string(),
  number: z.string(),
  isCurrent: z.boolean(),
  entryCount: z.number(),
});
export type NotaryCommission = z.infer<typeof notaryCommissionSchema>;

export const notaryArchiveListSchema = z.object({
  commissions: z.array(notaryCommissionSchema),
  items: z.array(notaryArchiveSchema),
});
export type NotaryArchiveList = z.infer<typeof notaryArchiveListSchema>;

export const notaryArchiveQuerySchema = z.object({ notaryId: z.uuid({ message: 'notaryId must be a UUID.' }).optional() });

export const requestNotaryArchiveInputSchema = z.object({
  /** An administrator asks on a notary's behalf; a notary leaves it out. */
  notaryId: z.uuid({ message: 'notaryId must be a UUID.' }).optional(),
  /** The commission to export; left out, the current one. */
  commissionState: singleLineTextSchema({ label: 'The commission state', max: 10 }).optional(),
  commissionNumber: singleLineTextSchema({ label: 'The commission number', max: 100 }).optional(),
});
export type RequestNotaryArchiveInput = z.infer<typeof requestNotaryArchiveInputSchema>;
