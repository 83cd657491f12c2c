import { createHmac, timingSafeEqual } from 'node:crypto';

/** How long a safe viewer link works after it is made. */
export const viewerLinkLifetimeMs = 5 * 60_000;

/** What a safe viewer link carries: for whom, which job, one document or all of them, until when. */
export interface ViewerTokenClaims {
  userId: string;
  jobId: string;
  /** null: every document of the job, in order. */
  documentId: string | null;
  /** Milliseconds since the epoch. */
  expiresAt: number;
}

export type ViewerTokenCheck = { isValid: true; claims: ViewerTokenClaims } | { isValid: false; reason: 'malformed' | 'expired' };

/** A key of its own, derived from the app's secretsKey, so the MAC is valid for nothing else. */
function tokenKey(secretsKey: Buffer): Buffer {
  return createHmac('sha256', secretsKey).update('safe-viewer-token-v1').digest();
}

function sign(secretsKey: Buffer, payload: string): string {
  return createHmac('sha256', tokenKey(secretsKey)).update(payload).digest('base64url');
}

/** base64url(JSON claims) + "." + base64url(HMAC-SHA256), valid for viewerLinkLifetimeMs. */
export function signViewerToken(secretsKey: Buffer, claims: Omit<ViewerTokenClaims, 'expiresAt'>, now = Date.now()): { token: string; expiresAt: number } {
  const expiresAt = now + viewerLinkLifetimeMs;
  const payload = Buffer.from(JSON.stringify({ ...claims, expiresAt })).toString('base64url');
  return { token: `${payload}.${sign(secretsKey, payload)}`, expiresAt };
}

const isId = (value: unknown): value is string => typeof value === 'string' && /^[0-9a-f-]{36}$/i.test(value);

/** Whether a token is ours, untouched and unexpired; who it belongs to is the caller's check. */
export function verifyViewerToken(secretsKey: Buffer, token: string, now = Date.now()): ViewerTokenCheck {
  const [payload, mac, extra] = token.split('.');
  if (!payload || !mac || extra !== undefined) return { isValid: false, reason: 'malformed' };
  const expectedMac = Buffer.from(sign(secretsKey, payload));
  const givenMac = Buffer.from(mac);
  if (givenMac.length !== expectedMac.length || !timingSafeEqual(givenMac, expectedMac)) return { isValid: false, reason: 'malformed' };
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return { isValid: false, reason: 'malformed' };
  }
  const { userId, jobId, documentId, expiresAt } = raw;
  if (!isId(userId) || !isId(jobId) || !(documentId === null || isId(documentId)) || typeof expiresAt !== 'number')
    return { isValid: false, reason: 'malformed' };
  if (expiresAt <= now) return { isValid: false, reason: 'expired' };
  return { isValid: true, claims: { userId, jobId, documentId, expiresAt } };
}
