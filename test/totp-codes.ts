import * as OTPAuth from 'otpauth';

/** The authenticator app of a test: RFC 6238, SHA-1, 6 digits, 30 s, as the server sets it up. */
export function totp(secret: string) {
  return new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });
}

export const currentCode = (secret: string) => totp(secret).generate();

/** A code of the next 30 s step: the server accepts one step of drift, and it is newer than any code used so far. */
export const nextCode = (secret: string) => totp(secret).generate({ timestamp: Date.now() + 30_000 });

/** Six digits that are not a valid code of this secret around now (nor any of `avoid`). */
export function wrongCode(secret: string | null, avoid: string[] = []): string {
  const valid = secret ? [-30_000, 0, 30_000].map((offset) => totp(secret).generate({ timestamp: Date.now() + offset })) : [];
  return ['000000', '111111', '222222', '333333', '444444'].find((code) => !valid.includes(code) && !avoid.includes(code)) ?? '555555';
}
