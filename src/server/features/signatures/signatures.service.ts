import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { and, desc, eq } from 'drizzle-orm';
import { hasAnyRole } from '#shared/roles.ts';
import { getSignatureImageUrl, pngDataUrlPrefix, signatureMessages, type SaveSignatureInput, type Signature, type SignatureKind } from '#shared/signatures.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { userSignatures, users } from '#server/db/schema/index.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError, notFound } from '#server/lib/errors.ts';

export type SignatureRow = typeof userSignatures.$inferSelect;

const kindLabels: Record<SignatureKind, string> = { signature: 'signature', initials: 'initials' };

function toSignature(row: SignatureRow): Signature {
  return { id: row.id, kind: row.kind, method: row.method, imageUrl: getSignatureImageUrl(row.id), createdAt: row.createdAt.toISOString() };
}

function requireUser(ctx: Ctx) {
  if (!ctx.user) throw new Error('signature services need a signed-in caller');
  return ctx.user;
}

/** The person's current signature or initials row, or null: for other features (the signing workspace). */
export async function getCurrentSignature(db: DbOrTx, userId: string, kind: SignatureKind): Promise<SignatureRow | null> {
  const [row] = await db
    .select()
    .from(userSignatures)
    .where(and(eq(userSignatures.userId, userId), eq(userSignatures.kind, kind), eq(userSignatures.isCurrent, true)))
    .orderBy(desc(userSignatures.createdAt))
    .limit(1);
  return row ?? null;
}

/** The caller's current signature or initials; 404 when none is saved yet. */
export async function getOwnSignature(ctx: Ctx, kind: SignatureKind): Promise<Signature> {
  const user = requireUser(ctx);
  const row = await getCurrentSignature(ctx.db, user.id, kind);
  if (!row) throw notFound(`You have not saved your ${kindLabels[kind]} yet.`);
  return toSignature(row);
}

/** Whether the person has a current signature or initials (their first adoption carried the consent). */
async function hasAdoptedAny(db: DbOrTx, userId: string): Promise<boolean> {
  const [adopted] = await db
    .select({ id: userSignatures.id })
    .from(userSignatures)
    .where(and(eq(userSignatures.userId, userId), eq(userSignatures.isCurrent, true)))
    .limit(1);
  return Boolean(adopted);
}

/** Writes bytes to a temporary file under DATA_DIR/tmp, hashes them and stores them as a blob. */
async function storePng(ctx: Ctx, bytes: Buffer): Promise<string> {
  const directory = path.join(ctx.config.dataDir, 'tmp');
  await fs.promises.mkdir(directory, { recursive: true });
  const filePath = path.join(directory, `${randomUUID()}.png`);
  try {
    await fs.promises.writeFile(filePath, bytes);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    return await ctx.storage.putFile(filePath, sha256, 'image/png');
  } finally {
    await fs.promises.rm(filePath, { force: true });
  }
}

/**
 * Saves a new signature or initials image (already checked by the contract). The previous current
 * one stays in the table, no longer current, because documents already signed point at it.
 */
export async function saveSignature(ctx: Ctx, kind: SignatureKind, input: SaveSignatureInput): Promise<Signature> {
  const user = requireUser(ctx);
  const bytes = Buffer.from(input.imageDataUrl.slice(pngDataUrlPrefix.length), 'base64');
  // A first adoption without the consent is refused before its image is stored: each refused request
  // used to leave a PNG in storage that no row points at. The transaction checks again (a race).
  if (!input.hasAgreedToSignElectronically && !(await hasAdoptedAny(ctx.db, user.id))) {
    throw new AppError(400, 'consent_required', signatureMessages.consentRequired);
  }
  const storageKey = await storePng(ctx, bytes);
  const row = await ctx.db.transaction(async (tx) => {
    // One save at a time per person, so exactly one row of a kind stays current.
    await tx.select({ id: users.id }).from(users).where(eq(users.id, user.id)).for('update');
    // The first adoption (no current signature or initials) carries the consent to sign
    // electronically; it is recorded once, with the words the person agreed to.
    if (!(await hasAdoptedAny(tx, user.id))) {
      if (!input.hasAgreedToSignElectronically) throw new AppError(400, 'consent_required', signatureMessages.consentRequired);
      await appendAuditEvent({ ...ctx, db: tx }, { action: 'signature.esign_consented', data: { wording: signatureMessages.consentWording } });
    }
    await tx
      .update(userSignatures)
      .set({ isCurrent: false })
      .where(and(eq(userSignatures.userId, user.id), eq(userSignatures.kind, kind), eq(userSignatures.isCurrent, true)));
    const [inserted] = await tx.insert(userSignatures).values({ userId: user.id, kind, method: input.method, storageKey, isCurrent: true }).returning();
    if (!inserted) throw new Error('signature insert returned no row');
    await appendAuditEvent(
      { ...ctx, db: tx },
      {
        action: kind === 'signature' ? 'signature.saved' : 'initials.saved',
        data: { signatureId: inserted.id, method: input.method, sizeBytes: bytes.length },
      },
    );
    return inserted;
  });
  ctx.log.info({ event: `${kind}.saved`, userId: user.id, signatureId: row.id }, `${kind} saved`);
  return toSignature(row);
}

/**
 * Opens a saved image for its owner or an administrator; `isAllowed` lets another feature admit
 * more callers (the signing workspace: the other people of a job). Everyone else gets 404.
 */
export async function openSignatureImage(
  ctx: Ctx,
  id: string,
  isAllowed?: (ownerId: string) => Promise<boolean>,
): Promise<{ stream: Readable; row: SignatureRow }> {
  const user = requireUser(ctx);
  const [row] = await ctx.db.select().from(userSignatures).where(eq(userSignatures.id, id)).limit(1);
  if (!row) throw notFound('No signature image with that id.');
  const isPermitted = row.userId === user.id || (user.status === 'active' && hasAnyRole(user, ['admin'])) || (isAllowed ? await isAllowed(row.userId) : false);
  if (!isPermitted) throw notFound('No signature image with that id.');
  return { stream: await ctx.storage.openStream(row.storageKey), row };
}
