import { boolean, doublePrecision, index, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { documents, jobParticipants, jobs } from './jobs.ts';
import { users } from './users.ts';

/** Saved signature and initials images; replacing one keeps the old row for documents already signed. */
export const userSignatures = pgTable(
  'user_signatures',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['signature', 'initials'] }).notNull(),
    method: text('method', { enum: ['draw', 'type', 'upload'] }).notNull(),
    storageKey: text('storage_key').notNull(),
    isCurrent: boolean('is_current').notNull().default(true),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('user_signatures_user_idx').on(table.userId, table.kind)],
);

/** Fields placed on a document page. Positions are fractions of the page (0..1, origin top-left). */
export const documentFields = pgTable(
  'document_fields',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    jobId: uuid('job_id')
      .notNull()
      .references(() => jobs.id, { onDelete: 'cascade' }),
    documentId: uuid('document_id')
      .notNull()
      .references(() => documents.id, { onDelete: 'cascade' }),
    type: text('type', {
      enum: ['signature', 'initials', 'date_signed', 'date', 'name', 'text', 'checkbox', 'notary_signature', 'notary_seal', 'notarial_certificate'],
    }).notNull(),
    page: integer('page').notNull(),
    x: doublePrecision('x').notNull(),
    y: doublePrecision('y').notNull(),
    width: doublePrecision('width').notNull(),
    height: doublePrecision('height').notNull(),
    participantId: uuid('participant_id').references(() => jobParticipants.id, { onDelete: 'set null' }),
    isRequired: boolean('is_required').notNull().default(true),
    /** Shown and printed at the same place on every page of the document; `page` is where it was placed. */
    isOnEveryPage: boolean('is_on_every_page').notNull().default(false),
    value: text('value'),
    signatureId: uuid('signature_id').references(() => userSignatures.id, { onDelete: 'restrict' }),
    filledAt: timestamp('filled_at', { withTimezone: true }),
    filledBy: uuid('filled_by').references(() => users.id, { onDelete: 'set null' }),
    version: integer('version').notNull().default(1),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('document_fields_document_idx').on(table.documentId)],
);

/**
 * The platform CA, the certificates it issues to notaries, and certificates notaries upload from
 * a PKCS#12 file (source 'uploaded', with their issuer chain). Private keys are AES-GCM encrypted.
 */
export const signingCredentials = pgTable(
  'signing_credentials',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    kind: text('kind', { enum: ['platform_ca', 'notary', 'platform_signer'] }).notNull(),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    certificatePem: text('certificate_pem').notNull(),
    /** Issuer certificates as concatenated PEM, nearest first: an uploaded certificate's chain (null for platform ones). */
    chainPem: text('chain_pem'),
    privateKeyEncrypted: text('private_key_encrypted').notNull(),
    serialNumber: text('serial_number').notNull(),
    subject: text('subject').notNull(),
    notBefore: timestamp('not_before', { withTimezone: true }).notNull(),
    notAfter: timestamp('not_after', { withTimezone: true }).notNull(),
    source: text('source', { enum: ['platform', 'uploaded'] })
      .notNull()
      .default('platform'),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    /** RFC 5280 CRLReason name (keyCompromise, superseded, cessationOfOperation, ...), set with revokedAt. */
    revocationReason: text('revocation_reason'),
    revokedBy: uuid('revoked_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('signing_credentials_user_idx').on(table.kind, table.userId)],
);

/** A notarized, digitally signed output: a new file; the original upload never changes. */
export const notarizedDocuments = pgTable(
  'notarized_documents',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    jobId: uuid('job_id')
      .notNull()
      .references(() => jobs.id, { onDelete: 'cascade' }),
    documentId: uuid('document_id')
      .notNull()
      .references(() => documents.id, { onDelete: 'cascade' }),
    storageKey: text('storage_key').notNull(),
    sha256: text('sha256').notNull().unique(),
    sizeBytes: integer('size_bytes').notNull(),
    pageCount: integer('page_count').notNull(),
    notaryId: uuid('notary_id').references(() => users.id, { onDelete: 'set null' }),
    credentialId: uuid('credential_id').references(() => signingCredentials.id, { onDelete: 'set null' }),
    /** Public facts for /verify: act type, notary commission, times. No signer personal data. */
    publicFacts: jsonb('public_facts').notNull(),
    /**
     * What was recorded when it was sealed (features/notarization/notarial-facts.ts): a notarial act
     * needs a recorded audio-video session and every signer's identity proven. Outputs sealed before
     * these columns existed had neither.
     */
    isNotarialAct: boolean('is_notarial_act').notNull().default(false),
    hasRecordedSession: boolean('has_recorded_session').notNull().default(false),
    hasProvenIdentity: boolean('has_proven_identity').notNull().default(false),
    /** Why it is not a notarial act, as sentences without personal data (shown by /verify). */
    notNotarialReasons: jsonb('not_notarial_reasons').$type<string[]>().notNull().default([]),
    /** The PAdES level of the current copy ('B-B', 'B-T', 'B-LT', 'B-LTA'); null for outputs sealed before it was recorded. */
    padesLevel: text('pades_level'),
    /** When the newest document timestamp's TSA certificate expires: the archive timestamp is renewed before then. */
    archiveTimestampExpiresAt: timestamp('archive_timestamp_expires_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('notarized_documents_job_idx').on(table.jobId), index('notarized_documents_archive_timestamp_idx').on(table.archiveTimestampExpiresAt)],
);

/**
 * Earlier copies of a notarized document: each archive-timestamp renewal appends a revision to the
 * file, and the copy before it stays verifiable by its hash (a person may hold it).
 */
export const notarizedDocumentRevisions = pgTable(
  'notarized_document_revisions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    notarizedDocumentId: uuid('notarized_document_id')
      .notNull()
      .references(() => notarizedDocuments.id, { onDelete: 'cascade' }),
    storageKey: text('storage_key').notNull(),
    sha256: text('sha256').notNull().unique(),
    sizeBytes: integer('size_bytes').notNull(),
    padesLevel: text('pades_level'),
    /** Why this copy was replaced: 'archive_timestamp_renewed'. */
    replacedBecause: text('replaced_because').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    replacedAt: timestamp('replaced_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('notarized_document_revisions_document_idx').on(table.notarizedDocumentId)],
);
