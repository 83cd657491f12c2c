import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { privateDirectoryMode, privateFileMode } from './data-dir.ts';

/** AES-256-GCM: 'v1.<iv>.<tag>.<ciphertext>', base64url parts. */
export function encryptSecret(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
}

export function decryptSecret(key: Buffer, sealed: string): string {
  const [version, iv, tag, ciphertext] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || !ciphertext) throw new Error('unknown secret format');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}

/** Keyed hash for short codes (email and backup codes), so a database copy cannot brute-force them. */
export function hashCode(key: Buffer, purpose: string, userId: string, code: string): string {
  return createHmac('sha256', key).update(`${purpose}:${userId}:${code}`).digest('hex');
}

/** The key from SECRETS_KEY, else DATA_DIR/secrets.key (created with mode 0600 on first start). */
export function loadSecretsKey(configured: Buffer | null, dataDir: string): Buffer {
  if (configured) return configured;
  const file = path.join(dataDir, 'secrets.key');
  if (fs.existsSync(file)) {
    const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`);
    return key;
  }
  fs.mkdirSync(dataDir, { recursive: true, mode: privateDirectoryMode });
  const key = randomBytes(32);
  fs.writeFileSync(file, key.toString('base64'), { mode: privateFileMode });
  return key;
}
