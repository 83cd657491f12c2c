import fs from 'node:fs';
import path from 'node:path';
import fastifyCookie from '@fastify/cookie';
import fastifyMultipart from '@fastify/multipart';
import fastifyStatic from '@fastify/static';
import fastifyWebsocket from '@fastify/websocket';
import fastJson from 'fast-json-stringify';
import { z } from 'zod';
import Fastify, { LogController, type FastifyError, type FastifyInstance, type FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { SessionUser } from '#shared/auth.ts';
import { authMessages } from '#shared/auth.ts';
import { hasAnyRole } from '#shared/roles.ts';
import type { Access, Ctx, Deps } from './lib/context.ts';
import { AppError, forbidden, unauthorized } from './lib/errors.ts';
import { deviceCookieName, isSameOrigin, readSessionToken } from './lib/http.ts';
import { SessionCache } from './lib/session-cache.ts';
import { createMailboxTransport, createSmtpTransport } from './providers/email/email.ts';
import { EmailDelivery } from './tasks/email-delivery.ts';
import { securityHeaders } from './lib/security-headers.ts';
import { authRoutes } from './features/auth/auth.routes.ts';
import { resolveSession } from './features/auth/sessions.service.ts';
import { mfaRoutes } from './features/auth/mfa.routes.ts';
import { usersRoutes } from './features/users/users.routes.ts';
import { documentsRoutes } from './features/documents/documents.routes.ts';
import { jobsRoutes } from './features/jobs/jobs.routes.ts';
import { mailRoutes } from './features/mail/mail.routes.ts';
import { notificationsRoutes } from './features/notifications/notifications.routes.ts';
import { fieldsRoutes } from './features/fields/fields.routes.ts';
import { notarizationRoutes, verifyRoutes } from './features/notarization/notarization.routes.ts';
import { signingRoutes } from './features/signing/signing.routes.ts';
import { emailInvitationsRoutes } from './features/invites/email-invitations.routes.ts';
import { invitesRoutes } from './features/invites/invites.routes.ts';
import { notariesRoutes } from './features/notaries/notaries.routes.ts';
import { signaturesRoutes } from './features/signatures/signatures.routes.ts';
import { systemRoutes } from './features/system/system.routes.ts';
import { titleCompaniesRoutes } from './features/title-companies/title-companies.routes.ts';
import { identityAdminRoutes } from './features/identity/identity-admin.ts';
import { journalRoutes } from './features/journal/journal.routes.ts';
import { availabilityRoutes, notaryAvailabilityRoutes } from './features/availability/availability.routes.ts';
import { identityJobRoutes, identityRoutes } from './features/identity/identity.routes.ts';
import { recordingPlaybackRoutes } from './features/video/recording-playback.routes.ts';
import { videoJobRoutes, videoRoutes } from './features/video/video.routes.ts';
import { liveSessionsOf } from './features/video/live-sessions.ts';
import { asOneArrival } from './db/arrival-order.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
  interface FastifyRequest {
    ctx: Ctx;
  }
  interface FastifyInstance {
    apiRoutes: ApiRoute[];
    emailDelivery: EmailDelivery;
  }
}

export interface ApiRoute {
  method: string;
  url: string;
  access: Access;
}

const unsafeMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** A path segment shaped like a secret token (256-bit base64url, as createToken makes), not an id or a hash. */
function isTokenLike(segment: string): boolean {
  return segment.length >= 32 && /^[\w-]+$/.test(segment) && !/^[0-9a-f-]+$/i.test(segment);
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

export interface BuildAppOptions {
  logger?: boolean;
  /** Where log lines go instead of stdout (tests read them). */
  logStream?: { write(line: string): void };
  isEmailDeliveryStarted?: boolean;
}

const slowRequestMs = 1000;

/** Builds the whole HTTP application from its dependencies; main.ts and the tests both call this. */
export async function buildApp(deps: Deps, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const { config } = deps;
  const app = Fastify({
    logger:
      options.logger === false
        ? false
        : {
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
            ...(options.logStream ? { stream: options.logStream } : {}),
          },
    bodyLimit: config.limits.bodyBytes,
    trustProxy: config.trustProxy,
    genReqId: () => crypto.randomUUID(),
    // Plugins register in milliseconds; on a saturated 2-core machine (CI running two test workers
    // beside an embedded database starting up) avvio's 10 s default fired without a real fault.
    pluginTimeout: 60_000,
    // Two log lines per request cost a quarter of /api/auth/me's throughput (docs/PERFORMANCE.md):
    // the hook below logs failed and slow requests; LOG_LEVEL=debug logs every one.
    logController: new LogController({ disableRequestLogging: true }),
  }).withTypeProvider<ZodTypeProvider>();
  const logsEveryRequest = config.logLevel === 'debug' || config.logLevel === 'trace';
  app.addHook('onResponse', async (request, reply) => {
    const isNotable = reply.statusCode >= 400 || reply.elapsedTime > slowRequestMs;
    if (!isNotable && !logsEveryRequest) return;
    const entry = { req: request, statusCode: reply.statusCode, responseTime: Math.round(reply.elapsedTime) };
    if (reply.statusCode >= 500) request.log.error(entry, 'request failed');
    else if (isNotable) request.log.info(entry, reply.statusCode >= 400 ? 'request refused' : 'slow request');
    else request.log.debug(entry, 'request completed');
  });
  app.setValidatorCompiler(validatorCompiler);
  // Outside tests, responses are written by compiled serializers (fast-json-stringify) from the same
  // zod schemas: about a quarter of /api/auth/me's CPU was zod encoding. Tests keep zod's serializer,
  // which also validates every response against its contract.
  if (config.nodeEnv === 'test') {
    app.setSerializerCompiler(serializerCompiler);
  } else {
    app.setSerializerCompiler(({ schema }) => fastJson(z.toJSONSchema(schema as unknown as z.ZodType, { io: 'output', unrepresentable: 'any' }) as object));
  }
  // Bodies are JSON (or multipart, where a route registers it): text/plain is what a cross-site form can send.
  app.removeContentTypeParser('text/plain');

  const emailTransport = config.email.smtpUrl
    ? createSmtpTransport(config.email.smtpUrl, config.email.from, config.publicUrl)
    : createMailboxTransport(deps.db, app.log);
  const emailDelivery = new EmailDelivery(deps.db, emailTransport, app.log, config.email);
  app.decorate('emailDelivery', emailDelivery);
  if (options.isEmailDeliveryStarted !== false) emailDelivery.start();
  app.addHook('onClose', async () => {
    await emailDelivery.stop();
    await emailTransport.close();
  });

  const sessionCache = new SessionCache(deps.realtime, config.session.cacheMs);
  await sessionCache.start();
  app.addHook('onClose', async () => sessionCache.stop());
  const { video } = deps;
  if (video) {
    const sessions = liveSessionsOf(video);
    // With Redis, sessions' rooms have a home instance and sockets on the others are relayed to it (issue 14).
    await sessions.startRelay({ db: deps.db, realtime: deps.realtime, storage: deps.storage, log: app.log, dataDir: config.dataDir });
    // Open recordings are flushed and stored, and every signaling socket told, before the database closes.
    app.addHook('onClose', async () => {
      await sessions.endAll(1001, 'server shutting down');
      await sessions.stopRelay();
    });
  }

  app.decorate('apiRoutes', [] as ApiRoute[]);
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api/')) return;
    const access = route.config?.access;
    if (!access) throw new Error(`Route ${String(route.method)} ${route.url} does not declare who may call it (config.access).`);
    for (const method of [route.method].flat()) if (method !== 'HEAD') app.apiRoutes.push({ method, url: route.url, access });
  });

  await app.register(fastifyCookie);
  // The file-size limit sits one byte above the configured one, so the upload code sees the overflow and answers 413 itself.
  // A signaling answer may carry an SDP of 200,000 characters (src/shared/video-signaling.ts); as JSON, its
  // escaped line ends make it larger. Frames beyond this close the socket (1009) before they are read.
  await app.register(fastifyWebsocket, { options: { maxPayload: 512 * 1024 } });
  await app.register(fastifyMultipart, { limits: { fileSize: config.documentMaxBytes + 1, files: 20, fields: 10, parts: 40 }, throwFileSizeLimit: false });
  app.decorateRequest('ctx', null as unknown as Ctx);

  // Every statement of a request carries the request's place in the arrival order (db/arrival-order.ts).
  app.addHook('onRequest', (_request, _reply, done) => asOneArrival(done));
  app.addHook('onRequest', async (request) => {
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
    if (credential && request.url.startsWith('/api/')) {
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
      ipAddress: request.ip,
      userAgent: request.headers['user-agent'] ?? null,
      requestId: request.id,
    };
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
  });

  app.addHook('onSend', securityHeaders(config));

  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
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
    const known: Record<string, [number, string, string]> = {
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
    request.log.error({ err: error }, 'request failed');
    return reply.code(500).send({ error: 'internal_error', message: 'Something went wrong on our side. Please try again.' });
  });

  await app.register(systemRoutes, { prefix: '/api/system' });
  await app.register(authRoutes, { prefix: '/api/auth' });
  await app.register(mfaRoutes, { prefix: '/api/auth' });
  await app.register(usersRoutes, { prefix: '/api/admin/users' });
  await app.register(mailRoutes, { prefix: '/api/admin/mail' });
  await app.register(jobsRoutes, { prefix: '/api/jobs' });
  await app.register(documentsRoutes, { prefix: '/api/jobs' });
  await app.register(notificationsRoutes, { prefix: '/api/notifications' });
  await app.register(fieldsRoutes, { prefix: '/api/jobs' });
  await app.register(signingRoutes, { prefix: '/api/jobs' });
  await app.register(notarizationRoutes, { prefix: '/api/jobs' });
  await app.register(verifyRoutes, { prefix: '/api/verify' });
  await app.register(invitesRoutes, { prefix: '/api/invites' });
  await app.register(emailInvitationsRoutes, { prefix: '/api/invites' });
  await app.register(notariesRoutes, { prefix: '/api/notary' });
  await app.register(titleCompaniesRoutes, { prefix: '/api/title-companies' });
  await app.register(signaturesRoutes, { prefix: '/api' });
  await app.register(videoRoutes, { prefix: '/api/video' });
  await app.register(videoJobRoutes, { prefix: '/api/jobs' });
  await app.register(recordingPlaybackRoutes, { prefix: '/api/jobs' });
  await app.register(identityRoutes, { prefix: '/api/identity' });
  await app.register(identityJobRoutes, { prefix: '/api/jobs' });
  await app.register(identityAdminRoutes, { prefix: '/api/admin/users' });
  await app.register(journalRoutes, { prefix: '/api/notary-log' });
  await app.register(notaryAvailabilityRoutes, { prefix: '/api/notary-availability' });
  await app.register(availabilityRoutes, { prefix: '/api/availability' });

  const indexFile = path.join(config.webDistDir, 'index.html');
  const hasWebBuild = fs.existsSync(indexFile);
  if (hasWebBuild) {
    await app.register(fastifyStatic, {
      root: config.webDistDir,
      wildcard: false,
      index: false,
      preCompressed: true,
      setHeaders: (res, filePath) => {
        const isHashed = filePath.includes(`${path.sep}assets${path.sep}`);
        res.header('cache-control', isHashed ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  }

  app.setNotFoundHandler((request, reply) => {
    const isPageRequest = (request.method === 'GET' || request.method === 'HEAD') && !request.url.startsWith('/api/') && !request.url.startsWith('/assets/');
    if (isPageRequest && hasWebBuild) {
      return reply.header('cache-control', 'no-cache').type('text/html').sendFile('index.html');
    }
    if (isPageRequest) {
      return reply.code(503).send({ error: 'web_not_built', message: 'The web app is not built yet. Run npm run build (npm start does it for you).' });
    }
    return reply.code(404).send({ error: 'not_found', message: `No route ${request.method} ${request.url.split('?')[0]}.` });
  });

  return app;
}
