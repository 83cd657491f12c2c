import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signVideoToken, verifyVideoToken } from './video-token.ts';

const key = randomBytes(32);
const claims = { userId: 'user-sam', sessionId: 'session-1', participantId: 'p-sam', deviceGroupId: 'laptop-1', role: 'signer' as const };
const now = Date.UTC(2026, 10, 23, 12, 0, 0);

describe('media tokens', () => {
  it('are accepted for their own person and session for five minutes, with every claim they were issued with', () => {
    const { token, expiresAt } = signVideoToken(key, claims, now);
    expect(expiresAt).toBe(now + 5 * 60_000);
    expect(verifyVideoToken(key, token, { userId: 'user-sam', sessionId: 'session-1' }, now + 4 * 60_000)).toEqual({
      isValid: true,
      claims: { ...claims, expiresAt },
    });
  });

  it('are refused once expired', () => {
    const { token } = signVideoToken(key, claims, now);
    expect(verifyVideoToken(key, token, { userId: 'user-sam', sessionId: 'session-1' }, now + 5 * 60_000)).toEqual({
      isValid: false,
      reason: 'The media token has expired; ask for a new one.',
    });
  });

  it('are refused to another person and in another session', () => {
    const { token } = signVideoToken(key, claims, now);
    expect(verifyVideoToken(key, token, { userId: 'user-mallory', sessionId: 'session-1' }, now)).toEqual({
      isValid: false,
      reason: 'The media token belongs to someone else.',
    });
    expect(verifyVideoToken(key, token, { userId: 'user-sam', sessionId: 'session-2' }, now)).toEqual({
      isValid: false,
      reason: 'The media token is for another session.',
    });
  });

  it('are refused when their claims were changed, when signed with another key, or when malformed', () => {
    const { token } = signVideoToken(key, claims, now);
    const [, mac] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...claims, userId: 'user-mallory', expiresAt: now + 60 * 60_000 })).toString('base64url');
    const notIssued = { isValid: false, reason: 'The media token was not issued by this server.' };
    expect(verifyVideoToken(key, `${forged}.${mac}`, { userId: 'user-mallory', sessionId: 'session-1' }, now)).toEqual(notIssued);
    const other = signVideoToken(randomBytes(32), claims, now).token;
    expect(verifyVideoToken(key, other, { userId: 'user-sam', sessionId: 'session-1' }, now)).toEqual(notIssued);
    for (const bad of ['', 'abc', `${token}.more`]) {
      expect(verifyVideoToken(key, bad, { userId: 'user-sam', sessionId: 'session-1' }, now)).toEqual({
        isValid: false,
        reason: 'The media token is malformed.',
      });
    }
  });
});
