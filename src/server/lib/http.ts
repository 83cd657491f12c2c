import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '#server/config.ts';

export const sessionCookieName = 'ron_session';
export const deviceCookieName = 'ron_device';

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
