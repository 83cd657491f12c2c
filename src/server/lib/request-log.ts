import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';

/** A path segment shaped like a secret token (256-bit base64url, as createToken makes), not an id or a hash. */
function isTokenLike(segment: string): boolean {
  // A file extension does not make a secret public: /api/calendar/feed/<token>.ics.
  const name = segment.replace(/\.[A-Za-z0-9]{1,8}$/, '');
  return name.length >= 32 && /^[\w-]+$/.test(name) && !/^[0-9a-f-]+$/i.test(name);
}

/**
 * A URL for the log: links carry secrets in the query (/api/auth/reset-password/validate?token=...)
 * and in the path (/api/invites/<token>/claim, /claim/<token>), and the log must never hold one. Query
 * values and token-shaped path segments are replaced; UUIDs and hex hashes stay readable.
 */
export function redactUrlForLog(url: string): string {
  const queryStart = url.indexOf('?');
  const pathPart = queryStart === -1 ? url : url.slice(0, queryStart);
  const redactedPath = pathPart
    .split('/')
    .map((segment) => (isTokenLike(segment) ? '[redacted]' : segment))
    .join('/');
  if (queryStart === -1) return redactedPath;
  const names = url
    .slice(queryStart + 1)
    .split('&')
    .filter(Boolean)
    .map((pair) => `${pair.split('=')[0]}=[redacted]`);
  return `${redactedPath}?${names.join('&')}`;
}

const slowRequestMs = 1000;

/** Pino options for the app's logger: secrets redacted, requests described without their tokens. */
export function loggerOptions(config: Config, stream?: { write(line: string): void }) {
  return {
    level: config.logLevel,
    redact: ['req.headers.authorization', 'req.headers.cookie'],
    serializers: {
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: redactUrlForLog(request.url),
        host: request.host,
        remoteAddress: request.ip,
        remotePort: request.socket?.remotePort,
      }),
    },
    ...(stream ? { stream } : {}),
  };
}

/**
 * Two log lines per request cost a quarter of /api/auth/me's throughput (docs/PERFORMANCE.md), so
 * only failed and slow requests are logged; LOG_LEVEL=debug logs every one.
 */
export function logNotableRequests(app: FastifyInstance, config: Config): void {
  const logsEveryRequest = config.logLevel === 'debug' || config.logLevel === 'trace';
  app.addHook('onResponse', async (request, reply) => {
    const isNotable = reply.statusCode >= 400 || reply.elapsedTime > slowRequestMs;
    if (!isNotable && !logsEveryRequest) return;
    const entry = { req: request, statusCode: reply.statusCode, responseTime: Math.round(reply.elapsedTime) };
    if (reply.statusCode >= 500) request.log.error(entry, 'request failed');
    else if (isNotable) request.log.info(entry, reply.statusCode >= 400 ? 'request refused' : 'slow request');
    else request.log.debug(entry, 'request completed');
  });
}
