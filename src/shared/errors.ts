import { z } from 'zod';

/** SPEC section 7: every failed call answers with `message`, or `error` plus `detail`. */
export const errorBodySchema = z.object({
  error: z.string(),
  message: z.string(),
  detail: z.unknown().optional(),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** The text a person sees for a failed call: message, else error plus detail, else the fallback. */
export function getErrorText(data: unknown, fallback: string): string {
  if (data && typeof data === 'object') {
    const record = data as Record<string, unknown>;
    if (typeof record.message === 'string' && record.message.trim()) return record.message;
    if (typeof record.error === 'string' && record.error.trim()) {
      const detail = record.detail;
      if (typeof detail === 'string' && detail.trim()) return `${record.error}: ${detail}`;
      return record.error;
    }
  }
  if (typeof data === 'string' && data.trim() && data.length < 300) return data;
  return fallback;
}
