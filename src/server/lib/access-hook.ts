import type { FastifyRequest } from 'fastify';
import { apiKeyMessages, apiKeyPrefix } from '#shared/api-keys.ts';
import type { SessionUser } from '#shared/auth.ts';
import { authMessages } from '#shared/auth.ts';
import { hasAnyRole } from '#shared/roles.ts';
import type { ApiKeyPrincipal, Deps } from './context.ts';
import { AppError, forbidden, unauthorized } from './errors.ts';
import { deviceCookieName, isSameOrigin, readSessionToken } from './http.ts';
import type { SessionCache } from './session-cache.ts';

const unsafeMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Finds the person behind a session token (the auth feature's resolveSession). */
export type SessionResolver = (
  db: Deps['db'],
  cache: SessionCache,
  token: string,
) => Promise<{ user: SessionUser; sessionId: string; isMfaPending: boolean } | null>;

/** Finds the API key a bearer token names (the integrations feature's resolveApiKey). */
export type ApiKeyResolver = (db: Deps['db'], token: string) => Promise<{ principal: ApiKeyPrincipal; isUsable: boolean; lastUsedAt: Date | null } | null>;

/**
 * The first word on every request, before any body is read: a cross-site write is refused, the
 * caller's session is resolved into request.ctx, and the route's declared access (config.access)
 * is enforced: public, signed-in, the second factor still pending, or a list of roles.
 */
export function createAccessHook(deps: Deps, sessionCache: SessionCache, resolveSession: SessionResolver, resolveApiKey: ApiKeyResolver) {
  const { config } = deps;
  return async (request: FastifyRequest): Promise<void> => {
    const origin = request.headers.origin;
    const credential = readSessionToken(request);
    if (unsafeMethods.has(request.method)) {
      if (origin ? !isSameOrigin(request, origin, config.publicUrl) : credential?.source === 'cookie') {
        throw new AppError(403, 'cross_origin_refused', 'This request came from another site and was refused.');
      }
    }
    let user: SessionUser | null = null;
    let sessionId: string | null = null;
    let isMfaPending = false;
    // A title company's API key (decision 054): it acts as its company, with its scopes, on the routes opened to them.
    const isApiKey = credential?.source === 'bearer' && credential.token.startsWith(apiKeyPrefix) && request.url.startsWith('/api/');
    const apiKey = isApiKey ? await resolveApiKey(deps.db, credential.token) : null;
    if (apiKey) request.apiKeyCall = apiKey;
    if (credential && !isApiKey && request.url.startsWith('/api/')) {
      const resolved = await resolveSession(deps.db, sessionCache, credential.token);
      if (resolved) ({ user, sessionId, isMfaPending } = resolved);
    }
    request.ctx = {
      db: deps.db,
      config,
      realtime: deps.realtime,
      sessionCache,
      log: request.log,
      user,
      sessionId,
      isMfaPending,
      deviceToken: request.cookies[deviceCookieName] ?? null,
      secretsKey: deps.secretsKey,
      storage: deps.storage,
      ...(deps.video ? { video: deps.video } : {}),
      payment: deps.payment ?? null,
      ipAddress: request.ip,
      userAgent: request.headers['user-agent'] ?? null,
      requestId: request.id,
      apiKey: null,
    };
    if (isApiKey) {
      if (!apiKey?.isUsable) throw new AppError(401, 'api_key_invalid', apiKeyMessages.unknown);
      const scope = request.routeOptions.config?.apiKeyScope;
      if (!scope) throw new AppError(403, 'api_key_not_allowed', apiKeyMessages.notAllowed);
      if (!apiKey.principal.scopes.includes(scope)) throw new AppError(403, 'api_key_scope_missing', apiKeyMessages.missingScope(scope));
      request.ctx.apiKey = apiKey.principal;
      return;
    }
    const access = request.routeOptions.config?.access;
    if (!access || access === 'public') return;
    if (!user) throw credential ? new AppError(401, 'session_expired', authMessages.sessionExpired) : unauthorized(authMessages.signInRequired);
    if (access === 'mfa') return;
    if (isMfaPending) throw new AppError(401, 'mfa_required', 'Finish signing in with your second factor first.');
    if (access === 'signed-in') return;
    if (user.status !== 'active') {
      throw new AppError(403, 'pending_approval', 'Your account is awaiting approval by an administrator.');
    }
    if (!hasAnyRole(user, access)) throw forbidden();
  };
}
