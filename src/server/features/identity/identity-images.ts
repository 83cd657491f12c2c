import { createCipheriv, createDecipheriv, createHash, randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { and, eq, isNull } from 'drizzle-orm';
import type { DbOrTx } from '#server/db/client.ts';
import { identityImages } from '#server/db/schema/index.ts';
import { privateFileMode } from '#server/lib/data-dir.ts';
import { decryptSecret, encryptSecret } from '#server/lib/secrets.ts';
import type { StorageProvider } from '#server/providers/storage/storage.ts';

export type IdentityImageKind = 'front' | 'back' | 'passport' | 'selfie';

/** Image formats accepted, recognised by their first bytes (not by what the browser claims). */
export function sniffImageType(content: Buffer): 'image/jpeg' | 'image/png' | 'image/webp' | null {
  if (content.length >= 3 && content[0] === 0xff && content[1] === 0xd8 && content[2] === 0xff) return 'image/jpeg';
  if (content.length >= 8 && content.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (content.length >= 12 && content.subarray(0, 4).toString('latin1') === 'RIFF' && content.subarray(8, 12).toString('latin1') === 'WEBP')
    return 'image/webp';
  return null;
}

/** AES-256-GCM with a fresh data key: iv (12) | tag (16) | ciphertext. */
function encryptImage(dataKey: Buffer, content: Buffer): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', dataKey, iv);
  const ciphertext = Buffer.concat([cipher.update(content), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
}

function decryptImage(dataKey: Buffer, sealed: Buffer): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', dataKey, sealed.subarray(0, 12));
  decipher.setAuthTag(sealed.subarray(12, 28));
  return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]);
}

interface ImageDeps {
  db: DbOrTx;
  storage: StorageProvider;
  secretsKey: Buffer;
}

/**
 * Encrypts an ID photograph or selfie with its own key and stores it; the key is kept sealed with
 * the secrets key in the row. Replaces the check's earlier image of the same kind (a retake); the
 * earlier blob is deleted once the new row is saved.
 */
export async function saveIdentityImage(deps: ImageDeps, checkId: string, kind: IdentityImageKind, content: Buffer, contentType: string): Promise<void> {
  const dataKey = randomBytes(32);
  const sealed = encryptImage(dataKey, content);
  const sha256 = createHash('sha256').update(sealed).digest('hex');
  const temporary = path.join(os.tmpdir(), `ron-identity-${randomUUID()}`);
  await fs.promises.writeFile(temporary, sealed, { mode: privateFileMode });
  try {
    await deps.storage.putFile(temporary, sha256, 'application/octet-stream');
  } finally {
    await fs.promises.rm(temporary, { force: true });
  }
  const [previous] = await deps.db
    .select({ storageKey: identityImages.storageKey })
    .from(identityImages)
    .where(and(eq(identityImages.checkId, checkId), eq(identityImages.kind, kind)));
  const values = {
    storageKey: sha256,
    dataKeySealed: encryptSecret(deps.secretsKey, dataKey.toString('base64')),
    contentType,
    bytes: content.length,
    createdAt: new Date(),
    purgedAt: null,
  };
  await deps.db
    .insert(identityImages)
    .values({ checkId, kind, ...values })
    .onConflictDoUpdate({ target: [identityImages.checkId, identityImages.kind], set: values });
  if (previous?.storageKey && previous.storageKey !== sha256) await deps.storage.remove(previous.storageKey);
}

/** The decrypted image of one kind, or null when there is none (or it was purged). */
export async function readIdentityImage(deps: ImageDeps, checkId: string, kind: IdentityImageKind): Promise<{ content: Buffer; contentType: string } | null> {
  const [row] = await deps.db
    .select()
    .from(identityImages)
    .where(and(eq(identityImages.checkId, checkId), eq(identityImages.kind, kind), isNull(identityImages.purgedAt)));
  if (!row?.storageKey || !row.dataKeySealed) return null;
  const dataKey = Buffer.from(decryptSecret(deps.secretsKey, row.dataKeySealed), 'base64');
  return { content: decryptImage(dataKey, await deps.storage.read(row.storageKey)), contentType: row.contentType };
}

/** Which kinds a check holds (not purged). */
export async function listIdentityImageKinds(db: DbOrTx, checkId: string): Promise<IdentityImageKind[]> {
  const rows = await db
    .select({ kind: identityImages.kind })
    .from(identityImages)
    .where(and(eq(identityImages.checkId, checkId), isNull(identityImages.purgedAt)));
  return rows.map((row) => row.kind);
}

/** Deletes a check's images: the blobs, then the keys (without a key a copy left anywhere is unreadable). */
export async function purgeIdentityImages(deps: ImageDeps, checkId: string, now: Date): Promise<number> {
  const rows = await deps.db
    .select()
    .from(identityImages)
    .where(and(eq(identityImages.checkId, checkId), isNull(identityImages.purgedAt)));
  for (const row of rows) {
    if (row.storageKey) await deps.storage.remove(row.storageKey);
    await deps.db.update(identityImages).set({ storageKey: null, dataKeySealed: null, purgedAt: now }).where(eq(identityImages.id, row.id));
  }
  return rows.length;
}
