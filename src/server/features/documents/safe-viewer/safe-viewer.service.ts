import { and, asc, eq } from 'drizzle-orm';
import type { SandboxLink } from '#shared/documents.ts';
import { documents } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError, conflict, forbidden, notFound, unauthorized } from '#server/lib/errors.ts';
import { getJobAccess } from '#server/features/jobs/job-access.ts';
import { sanitiseInPool } from './sanitise-pool.ts';
import { signViewerToken, verifyViewerToken } from './viewer-token.ts';

/** Where the viewer page lives; the token rides in the query, which the log redacts. */
export const safeViewerPath = '/api/safe-viewer';
/**
 * The page carries the copies, so the documents it opens together are bounded: by the upload limit,
 * or 64 MB if that is larger (one document of any allowed size always opens on its own).
 */
export const safeViewerMinTotalBytes = 64 * 1024 * 1024;
/** How long one file may take to sanitise. */
const sanitiseTimeoutMs = 30_000;

export interface SanitisedDocument {
  name: string;
  pageCount: number;
  bytes: Uint8Array;
}

const documentNotFound = () => notFound('No document with that id on this job.');

async function findViewedDocuments(ctx: Ctx, jobId: string, documentId: string | null) {
  if (documentId !== null && !/^[0-9a-f-]{36}$/i.test(documentId)) throw documentNotFound();
  const rows = await ctx.db
    .select({ id: documents.id, name: documents.name, pageCount: documents.pageCount, sizeBytes: documents.sizeBytes, storageKey: documents.storageKey })
    .from(documents)
    .where(documentId === null ? eq(documents.jobId, jobId) : and(eq(documents.jobId, jobId), eq(documents.id, documentId)))
    .orderBy(asc(documents.position), asc(documents.createdAt));
  if (documentId !== null && rows.length === 0) throw documentNotFound();
  if (rows.length === 0) throw conflict('This job has no documents to open yet.');
  return rows;
}

/**
 * A short-lived safe viewer link for one document of a job, or all of them (documentId null), for
 * whoever may read the job's documents (getJobAccess: anyone else hears 404).
 */
export async function createSandboxLink(ctx: Ctx, jobId: string, documentId: string | null): Promise<SandboxLink> {
  const access = await getJobAccess(ctx, jobId);
  await findViewedDocuments(ctx, jobId, documentId);
  const { token, expiresAt } = signViewerToken(ctx.secretsKey, { userId: access.userId, jobId, documentId });
  return { url: `${safeViewerPath}?token=${token}`, expiresAt: new Date(expiresAt).toISOString() };
}

/**
 * What the viewer page shows for a link: the link must be ours and unexpired, the browser signed in
 * as the person it was made for, and that person still allowed on the job. Each document is read
 * from storage and sanitised in the pool, in the job's order.
 */
export async function openSafeViewer(ctx: Ctx, token: string): Promise<{ jobTitle: string; documents: SanitisedDocument[] }> {
  const check = verifyViewerToken(ctx.secretsKey, token);
  if (!check.isValid) {
    if (check.reason === 'expired') throw new AppError(410, 'link_expired', 'This viewer link has expired. Open the safe viewer again from the job page.');
    throw notFound('This viewer link is not valid. Open the safe viewer again from the job page.');
  }
  const { claims } = check;
  if (!ctx.user || ctx.isMfaPending) throw unauthorized('Sign in, then open the safe viewer again from the job page.');
  if (ctx.user.id !== claims.userId) throw forbidden('This viewer link was made for someone else. Open the safe viewer from the job page yourself.');
  const access = await getJobAccess(ctx, claims.jobId);
  const rows = await findViewedDocuments(ctx, claims.jobId, claims.documentId);
  const maxBytes = Math.max(ctx.config.documentMaxBytes, safeViewerMinTotalBytes);
  const totalBytes = rows.reduce((sum, row) => sum + row.sizeBytes, 0);
  if (totalBytes > maxBytes) {
    throw new AppError(413, 'file_too_large', 'These documents are too large to open together in the safe viewer. Open them one at a time.', { maxBytes });
  }
  const sanitised: SanitisedDocument[] = [];
  // One after another: at most one original and its copy are held at a time besides the copies made.
  for (const row of rows) {
    const original = await ctx.storage.read(row.storageKey);
    sanitised.push({ name: row.name, pageCount: row.pageCount, bytes: await sanitiseInPool(original, sanitiseTimeoutMs) });
  }
  return { jobTitle: access.job.title, documents: sanitised };
}
