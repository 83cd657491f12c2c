import type { FastifyReply, FastifyRequest } from 'fastify';
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
