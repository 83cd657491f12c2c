import type { FastifyRequest } from 'fastify';
import { findUnstorableText, notStorableMessage } from '#shared/text.ts';
import { AppError } from './errors.ts';

/**
 * A preHandler: after each route's own schema (whose messages name the field in its words), one rule
 * for every string left in the body, the query and the path. A NUL (PostgreSQL cannot store it) or a
 * lone surrogate (not text) is refused with 400 before any handler sees it.
 */
export async function refuseUnstorableText(request: FastifyRequest): Promise<void> {
  const parts = [
    ['body', request.body, 'The field'],
    ['query', request.query, 'The query parameter'],
    ['params', request.params, 'The path parameter'],
  ] as const;
  for (const [, value, label] of parts) {
    const path = findUnstorableText(value);
    if (path === null) continue;
    const message = notStorableMessage(path ? `${label} ${path}` : 'The request');
    throw new AppError(400, 'validation_failed', message, [{ path, message }]);
  }
}
