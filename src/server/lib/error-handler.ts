import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import type { ErrorCode } from '#shared/errors.ts';
import type { Config } from '../config.ts';
import { AppError } from './errors.ts';

/** A deadlock (40P01) or serialization failure (40001) of PostgreSQL, found through the causes a query error wraps. */
function isConcurrencyFailure(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (code === '40P01' || code === '40001') return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Every failure leaves in one shape, { error, message, detail? }: an AppError as it was thrown, a
 * schema refusal naming its fields, Fastify's own refusals in sentences, and anything unexpected as
 * a 500 that is logged and tells nothing of the inside.
 */
export function createErrorHandler(config: Pick<Config, 'limits'>) {
  return (error: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof AppError) {
      if (error.headers) void reply.headers(error.headers);
      return reply.code(error.statusCode).send({ error: error.code, message: error.message, detail: error.detail });
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      const issues = error.validation.map((issue) => ({
        path: issue.instancePath.replace(/^\//, '').replace(/\//g, '.'),
        message: issue.message,
      }));
      const first = issues[0];
      return reply.code(400).send({ error: 'validation_failed', message: first?.message ?? 'The request is not valid.', detail: issues });
    }
    const known: Record<string, [number, ErrorCode, string]> = {
      FST_ERR_CTP_BODY_TOO_LARGE: [413, 'payload_too_large', `The request body is too large (limit ${config.limits.bodyBytes} bytes).`],
      FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'unsupported_media_type', 'Send the body as JSON (application/json) or multipart form data.'],
      FST_ERR_CTP_INVALID_JSON_BODY: [400, 'invalid_json', 'The request body is not valid JSON.'],
      FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'invalid_json', 'The request body is empty; send a JSON object.'],
      FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'bad_request', 'The Content-Length header does not match the body.'],
    };
    const mapped = error.code ? known[error.code] : undefined;
    if (mapped) return reply.code(mapped[0]).send({ error: mapped[1], message: mapped[2] });
    if (error instanceof SyntaxError || (error.statusCode === 400 && !error.code)) {
      return reply.code(400).send({ error: 'invalid_json', message: 'The request body is not valid JSON.' });
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.code(error.statusCode).send({ error: (error.code ?? 'bad_request').toLowerCase(), message: error.message });
    }
    if (isConcurrencyFailure(error)) {
      // PostgreSQL ended one of two transactions that waited on each other (deadlock) or could not be
      // ordered (serialization): the request changed nothing and can simply be sent again.
      request.log.warn({ err: error }, 'request ended by a concurrent change');
      return reply
        .code(503)
        .headers({ 'retry-after': '1' })
        .send({ error: 'database_busy', message: 'Another change to the same records was made at the same moment. Please try again.' });
    }
    request.log.error({ err: error }, 'request failed');
    return reply.code(500).send({ error: 'internal_error', message: 'Something went wrong on our side. Please try again.' });
  };
}
