import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '#server/config.ts';

/** Headers every response carries: a strict CSP, no framing, no sniffing, no referrer leaks. */
export function securityHeaders(config: Config) {
  const chatOrigin = config.chatWidgetUrl ? new URL(config.chatWidgetUrl).origin : '';
  const csp = [
    "default-src 'self'",
    `script-src 'self'${chatOrigin ? ` ${chatOrigin}` : ''}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "media-src 'self' blob:",
    "font-src 'self' data:",
    `connect-src 'self' ws: wss:${chatOrigin ? ` ${chatOrigin}` : ''}`,
    `frame-src 'self'${chatOrigin ? ` ${chatOrigin}` : ''}`,
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
  const headers: Record<string, string> = {
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'same-origin',
    'cross-origin-opener-policy': 'same-origin',
    'permissions-policy': 'camera=(self), microphone=(self), geolocation=(), payment=()',
  };
  if (config.publicUrl.startsWith('https://')) headers['strict-transport-security'] = 'max-age=31536000; includeSubDomains';
  return async (_request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    reply.headers(headers);
    if (!reply.hasHeader('cache-control') && reply.request.url.startsWith('/api/')) reply.header('cache-control', 'no-store');
    return payload;
  };
}

/**
 * Fastify's answer to a path its router cannot read, before any route or hook runs: a broken
 * %-encoding (400) or a path part longer than the router allows (414), in the app's error shape
 * and with the headers every response carries.
 */
export function createFrameworkErrorHandler(config: Config) {
  const addHeaders = securityHeaders(config);
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const [status, body] =
      error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? ([414, { error: 'uri_too_long', message: 'A part of the address is too long (at most 100 characters).' }] as const)
        : ([400, { error: 'bad_request', message: 'The address is not valid: part of it is not properly encoded.' }] as const);
    void addHeaders(request, reply, null).then(() => reply.code(status).send(body));
  };
}
