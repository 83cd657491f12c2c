import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '#server/config.ts';

export const sessionCookieName = 'ron_session';
export const deviceCookieName = 'ron_device';

/**
 * Whether an Origin header names this app: the public URL, or the host the request was sent to.
 * Anything else is foreign, including the opaque origin "null" (sandboxed frames, file: pages).
 */
export function isSameOrigin(request: FastifyRequest, origin: string, publicUrl: string): boolean {
  if (origin === publicUrl) return true;
  try {
    const from = new URL(origin);
    // Parse the Host header with the origin's scheme so a default port (:80, :443) compares equal to none.
    return from.host === new URL(`${from.protocol}//${request.host}`).host;
  } catch {
    return false;
  }
}

/** The session token of a request: the bearer header first, then the httpOnly cookie. */
export function readSessionToken(request: FastifyRequest): { token: string; source: 'bearer' | 'cookie' } | null {
  const header = request.headers.authorization;
  if (header?.startsWith('Bearer ')) {
    const token = header.slice(7).trim();
    if (token) return { token, source: 'bearer' };
  }
  const cookie = request.cookies[sessionCookieName];
  return cookie ? { token: cookie, source: 'cookie' } : null;
}

/**
 * The first checks of a WebSocket to the API: a browser's socket must come from our own pages and
 * carry a sign-in. Closes the socket (4403 cross-origin, 4401 signed out) and returns null otherwise.
 */
export function admitSocket(
  request: FastifyRequest,
  socket: { close(code: number, reason: string): void },
): { token: string; source: 'bearer' | 'cookie' } | null {
  const origin = request.headers.origin;
  if (origin !== undefined && !isSameOrigin(request, origin, request.ctx.config.publicUrl)) {
    socket.close(4403, 'cross-origin');
    return null;
  }
  const credential = readSessionToken(request);
  if (!credential) socket.close(4401, 'signed out');
  return credential;
}

/** Every distinct session token a request presents (bearer header and cookie): logout ends them all. */
export function readSessionTokens(request: FastifyRequest): string[] {
  const header = request.headers.authorization;
  const bearer = header?.startsWith('Bearer ') ? header.slice(7).trim() : '';
  const cookie = request.cookies[sessionCookieName] ?? '';
  return [...new Set([bearer, cookie].filter(Boolean))];
}

export function setSessionCookie(reply: FastifyReply, config: Config, token: string, expiresAt: Date): void {
  reply.setCookie(sessionCookieName, token, {
    httpOnly: true,
    sameSite: 'lax',
    secure: config.session.cookieSecure,
    path: '/',
    expires: expiresAt,
  });
}

export function clearSessionCookie(reply: FastifyReply, config: Config): void {
  reply.clearCookie(sessionCookieName, { httpOnly: true, sameSite: 'lax', secure: config.session.cookieSecure, path: '/' });
}

export function setDeviceCookie(reply: FastifyReply, config: Config, token: string, expiresAt: Date): void {
  reply.setCookie(deviceCookieName, token, { httpOnly: true, sameSite: 'lax', secure: config.session.cookieSecure, path: '/api/auth', expires: expiresAt });
}

export function clearDeviceCookie(reply: FastifyReply, config: Config): void {
  reply.clearCookie(deviceCookieName, { httpOnly: true, sameSite: 'lax', secure: config.session.cookieSecure, path: '/api/auth' });
}
