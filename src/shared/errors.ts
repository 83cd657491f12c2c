import { z } from 'zod';

/**
 * Every `error` code the server answers with, in one list: the server's AppError takes only these,
 * and the web's ApiError reads them back typed, so a code is spelled once and a new one is added here.
 */
export const errorCodes = [
  'account_disabled',
  'account_rejected',
  'already_active',
  'already_approved',
  'already_closed',
  'already_inactive',
  'already_rejected',
  'api_key_invalid',
  'api_key_not_allowed',
  'api_key_scope_missing',
  'bad_request',
  'broken_pdf',
  'cannot_enter',
  'cannot_go_online',
  'certificate_revoked',
  'card_declined',
  'code_already_sent',
  'code_locked',
  'company_closed',
  'conflict',
  'consent_required',
  'credential_reader_busy',
  'credential_reader_unavailable',
  'cross_origin_refused',
  'database_busy',
  'document_completed',
  'documents_busy',
  'documents_unavailable',
  'email_code_invalid',
  'email_not_verified',
  'encrypted_pdf',
  'fee_above_cap',
  'field_filled',
  'file_too_large',
  'forbidden',
  'gnw_active_job',
  'gnw_not_ready',
  'headers_too_large',
  'identity_not_proven',
  'identity_provider_unavailable',
  'image_too_large',
  'internal_error',
  'invalid_certificate',
  'invalid_code',
  'invalid_credentials',
  'invalid_json',
  'invalid_ticket',
  'invalid_token',
  'invalid_transition',
  'invalid_webhook',
  'invite_email_mismatch',
  'invite_invalid',
  'job_locked',
  'journal_entry_final',
  'journal_fields_missing',
  'journal_notarial_act',
  'journal_retention',
  'journal_too_large_for_pdf',
  'link_expired',
  'media_room_unavailable',
  'mfa_locked',
  'mfa_required',
  'missing_images',
  'no_file',
  'no_show_fee_applies',
  'not_an_image',
  'not_found',
  'not_notarized',
  'not_pdf',
  'not_recorded',
  'not_recording',
  'notary_is_participant',
  'notary_profile_missing',
  'notary_signed',
  'notary_unavailable',
  'offer_gone',
  'participant_signed',
  'password_sign_in_required',
  'payload_too_large',
  'payment_action_required',
  'payment_exists',
  'payment_not_configured',
  'payment_provider_error',
  'payment_provider_unavailable',
  'payment_required',
  'pdf_too_complex',
  'pdf_unpacks_too_large',
  'pending_approval',
  'precondition_required',
  'prices_not_set',
  'profile_incomplete',
  'range_not_satisfiable',
  'rate_limited',
  'recording_interrupted',
  'reminder_too_soon',
  'request_timeout',
  'safe_viewer_busy',
  'safe_viewer_unavailable',
  'sealing_busy',
  'sealing_unavailable',
  'session_expired',
  'session_not_live',
  'setup_locked',
  'setup_not_started',
  'signature_missing',
  'slot_taken',
  'stale_version',
  'timestamp_unavailable',
  'too_many_slots',
  'unauthorized',
  'unprintable_text',
  'unsealable_pdf',
  'unsupported_media_type',
  'unsupported_type',
  'uri_too_long',
  'validation_failed',
  'verification_required',
  'web_not_built',
] as const;
export type ErrorCode = (typeof errorCodes)[number];

/** The code of an error body, when it is one this server sends. */
export function readErrorCode(data: unknown): ErrorCode | null {
  if (!data || typeof data !== 'object') return null;
  const code = (data as { error?: unknown }).error;
  return typeof code === 'string' && (errorCodes as readonly string[]).includes(code) ? (code as ErrorCode) : null;
}

/** Every failed call answers with `message`, or `error` plus `detail`. */
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
