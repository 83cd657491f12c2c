import { createHmac, timingSafeEqual } from 'node:crypto';
import { videoRoleSchema, videoTokenLifetimeMs, type VideoRole } from '#shared/video.ts';

/** What a media token carries: who, in which session, as which participant, from which devices, until when. */
export interface VideoTokenClaims {
  userId: string;
  sessionId: string;
  participantId: string;
  deviceGroupId: string;
  role: VideoRole;
  /** Milliseconds since the epoch. */
  expiresAt: number;
}

export type VideoTokenCheck = { isValid: true; claims: VideoTokenClaims } | { isValid: false; reason: string };

/** A key of its own, derived from the app's secretsKey, so a token's MAC is never valid for any other use. */
function tokenKey(secretsKey: Buffer): Buffer {
  return createHmac('sha256', secretsKey).update('video-token-v1').digest();
}

function sign(secretsKey: Buffer, payload: string): string {
  return createHmac('sha256', tokenKey(secretsKey)).update(payload).digest('base64url');
}

/** A token valid for five minutes: base64url(JSON claims) + "." + base64url(HMAC-SHA256). */
export function signVideoToken(secretsKey: Buffer, claims: Omit<VideoTokenClaims, 'expiresAt'>, now = Date.now()): { token: string; expiresAt: number } {
  const expiresAt = now + videoTokenLifetimeMs;
  const payload = Buffer.from(JSON.stringify({ ...claims, expiresAt })).toString('base64url');
  return { token: `${payload}.${sign(secretsKey, payload)}`, expiresAt };
}

/**
 * What the signaling layer calls before letting a socket into a room: the token must be ours,
 * untouched, unexpired, and issued to this signed-in person for this session.
 */
export function verifyVideoToken(secretsKey: Buffer, token: string, expected: { userId: string; sessionId: string }, now = Date.now()): VideoTokenCheck {
  const [payload, mac, extra] = token.split('.');
  if (!payload || !mac || extra !== undefined) return { isValid: false, reason: 'The media token is malformed.' };
  const expectedMac = Buffer.from(sign(secretsKey, payload));
  const givenMac = Buffer.from(mac);
  if (givenMac.length !== expectedMac.length || !timingSafeEqual(givenMac, expectedMac))
    return { isValid: false, reason: 'The media token was not issued by this server.' };
  let claims: VideoTokenClaims;
  try {
    const raw = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const role = videoRoleSchema.parse(raw.role);
    const fields = [raw.userId, raw.sessionId, raw.participantId, raw.deviceGroupId];
    if (!fields.every((value) => typeof value === 'string') || typeof raw.expiresAt !== 'number') throw new Error('bad claims');
    claims = {
      userId: raw.userId as string,
      sessionId: raw.sessionId as string,
      participantId: raw.participantId as string,
      deviceGroupId: raw.deviceGroupId as string,
      role,
      expiresAt: raw.expiresAt,
    };
  } catch {
    return { isValid: false, reason: 'The media token is malformed.' };
  }
  if (claims.expiresAt <= now) return { isValid: false, reason: 'The media token has expired; ask for a new one.' };
  if (claims.userId !== expected.userId) return { isValid: false, reason: 'The media token belongs to someone else.' };
  if (claims.sessionId !== expected.sessionId) return { isValid: false, reason: 'The media token is for another session.' };
  return { isValid: true, claims };
}
