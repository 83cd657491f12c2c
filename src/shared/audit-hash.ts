import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/**
 * The audit chain's hash, shared by the server (which writes it) and the archive verifier (which
 * recomputes it from an exported audit.json): one function, so both always agree.
 */

/** Every column an audit event's hash covers, as hashed (createdAt as an ISO string). */
export interface AuditHashFields {
  id: string;
  scope: string;
  jobId: string | null;
  actorId: string | null;
  action: string;
  ipAddress: string | null;
  userAgent: string | null;
  data: unknown;
  createdAt: string;
  previousHash: string | null;
}

/** JSON with sorted keys, so the hash does not depend on how jsonb orders them. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, entry]) => entry !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonicalJson(entry)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export function computeAuditHash(fields: AuditHashFields): string {
  const content = canonicalJson({
    id: fields.id,
    scope: fields.scope,
    jobId: fields.jobId,
    actorId: fields.actorId,
    action: fields.action,
    ipAddress: fields.ipAddress,
    userAgent: fields.userAgent,
    data: fields.data,
    createdAt: fields.createdAt,
    previousHash: fields.previousHash,
  });
  return bytesToHex(sha256(utf8ToBytes(content)));
}
