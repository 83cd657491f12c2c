import type { Ctx } from '#server/lib/context.ts';
import { AppError } from '#server/lib/errors.ts';
import { hitRateLimit, throwRateLimited } from '#server/lib/rate-limit.ts';
import { getOrCreatePlatformCa } from '#server/providers/signing/certificates.ts';
import { createPlatformCrl } from '#server/providers/signing/crl.ts';
import { pemToDer } from '#server/providers/signing/der.ts';
import { createOcspStatusResponse, createPlatformOcspResponse } from '#server/providers/signing/ocsp.ts';

/** An OCSP request for a few certificates is a few hundred bytes; 10 KB leaves room for a signed one. */
export const maxOcspRequestBytes = 10 * 1024;
/** Validators check a document's whole chain at once: generous, but a bound (per network, per minute). */
const pkiRequestsPerMinute = 120;

export const pkiMessages = {
  tooLarge: `An OCSP request is at most ${maxOcspRequestBytes / 1024} KB; this one is larger.`,
} as const;

async function limitPkiRequests(ctx: Ctx): Promise<void> {
  const hits = await hitRateLimit(ctx.db, `pki:address:${ctx.ipAddress}`, 60_000);
  if (hits.count > pkiRequestsPerMinute) throwRateLimited('certificate status requests from this network', hits.resetAt);
}

/** GET /pki/ca.crt: the platform CA's certificate, DER (the caIssuers address in every certificate it issues). */
export async function getCaCertificate(ctx: Ctx): Promise<Buffer> {
  await limitPkiRequests(ctx);
  return pemToDer((await getOrCreatePlatformCa(ctx.db, ctx.secretsKey)).certificatePem);
}

/** GET /pki/crl: made now from the stored revocations, so a revocation shows at once. */
export async function getCrl(ctx: Ctx): Promise<Buffer> {
  await limitPkiRequests(ctx);
  return createPlatformCrl(ctx.db, ctx.secretsKey);
}

/** POST /pki/ocsp and GET /pki/ocsp/{request}: an OCSP response (RFC 6960); a broken request gets malformedRequest, never an error page. */
export async function answerOcsp(ctx: Ctx, request: Buffer | null): Promise<Buffer> {
  await limitPkiRequests(ctx);
  if (!request || request.length === 0) return createOcspStatusResponse(1);
  if (request.length > maxOcspRequestBytes) throw new AppError(413, 'payload_too_large', pkiMessages.tooLarge);
  return createPlatformOcspResponse(ctx.db, ctx.secretsKey, request);
}

/** The request of GET /pki/ocsp/{request}: base64 (or base64url) of the DER, URL-encoded; null when it is not. */
export function decodeOcspGetRequest(encoded: string): Buffer | null {
  let text: string;
  try {
    text = decodeURIComponent(encoded);
  } catch {
    return null;
  }
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) return null;
  return Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
}
