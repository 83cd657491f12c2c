import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '#server/config.ts';

/** Headers every response carries: a strict CSP, no framing, no sniffing, no referrer leaks. */
export function securityHeaders(config: Config) {
  const chatOrigin = config.chatWidgetUrl ? new URL(config.chatWidgetUrl).origin : '';
  // Stripe.js (the Notarize Now card form, decision 051) only where a page can load it: Stripe with its publishable key.
  const hasStripeJs = config.payment?.kind === 'stripe' && config.payment.publishableKey !== null;
  const sources = (own: string, ...others: string[]) => [own, ...others.filter(Boolean)].join(' ');
  const csp = [
    "default-src 'self'",
    sources("script-src 'self'", chatOrigin, hasStripeJs ? 'https://js.stripe.com https://*.js.stripe.com' : ''),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "media-src 'self' blob:",
    "font-src 'self' data:",
    sources("connect-src 'self' ws: wss:", chatOrigin, hasStripeJs ? 'https://api.stripe.com' : ''),
    sources("frame-src 'self'", chatOrigin, hasStripeJs ? 'https://js.stripe.com https://*.js.stripe.com https://hooks.stripe.com' : ''),
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
    // A sandboxed page (decision 053) keeps the CSP it set, but only one that starts with the
    // sandbox directive: never a weaker policy than the app's.
    const ownPolicy = reply.request.routeOptions.config?.isSandboxedPage ? reply.getHeader('content-security-policy') : undefined;
    reply.headers(headers);
    if (typeof ownPolicy === 'string' && /^sandbox( |;|$)/.test(ownPolicy))
      reply.header('content-security-policy', ownPolicy).header('referrer-policy', 'no-referrer');
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
