import fastifyCookie from '@fastify/cookie';
import fastifyMultipart from '@fastify/multipart';
import fastifySwagger from '@fastify/swagger';
import fastifyWebsocket from '@fastify/websocket';
import fastJson from 'fast-json-stringify';
import { z } from 'zod';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { ApiKeyScope } from '#shared/api-keys.ts';
import type { Access, Ctx, Deps } from './lib/context.ts';
import { createAccessHook } from './lib/access-hook.ts';
import { createErrorHandler } from './lib/error-handler.ts';
import { openApiOptions } from './lib/openapi.ts';
import { loggerOptions, logNotableRequests } from './lib/request-log.ts';
import { createClientErrorHandler, serverTimeoutOptions, watchBody } from './lib/request-timeouts.ts';
import { createFrameworkErrorHandler, securityHeaders } from './lib/security-headers.ts';
import { SessionCache } from './lib/session-cache.ts';
import { refuseUnstorableText } from './lib/storable-text.ts';
import { registerWebApp } from './lib/web-app.ts';
import { createPaymentProvider } from './providers/payment/payment-provider.ts';
import { createMailboxTransport, createSmtpTransport } from './providers/email/email.ts';
import { EmailDelivery } from './tasks/email-delivery.ts';
import { WebhookDelivery } from './tasks/webhook-delivery.ts';
import { ArchiveBuilder } from './tasks/archive-builder.ts';
import { resolveSession } from './features/auth/sessions.service.ts';
import { recordApiKeyCall, resolveApiKey, type ResolvedApiKey } from './features/integrations/api-keys.service.ts';
import { liveSessionsOf } from './features/video/signaling/live-sessions.ts';
import { asOneArrival } from './db/arrival-order.ts';
import { apiRouteTable } from './routes.ts';
import { pkiRoutes } from './features/pki/pki.routes.ts';
import { setPkiPublicUrl } from './providers/signing/pki-sources.ts';

export { redactUrlForLog } from './lib/request-log.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
    /** A page served in a CSP sandbox (the safe viewer, decision 053): its own stricter CSP and referrer policy are kept. */
    isSandboxedPage?: boolean;
    /** The scope a title company's API key needs to call this route (decision 054); without it, keys are refused. */
    apiKeyScope?: ApiKeyScope;
  }
  interface FastifyRequest {
    ctx: Ctx;
    /** The API key the request came with, usable or not: its call is audited before the answer leaves. */
    apiKeyCall: ResolvedApiKey | null;
  }
  interface FastifyInstance {
    apiRoutes: ApiRoute[];
    emailDelivery: EmailDelivery;
    webhookDelivery: WebhookDelivery;
    archiveBuilder: ArchiveBuilder;
  }
}

export interface ApiRoute {
  method: string;
  url: string;
  access: Access;
  apiKeyScope: ApiKeyScope | null;
  /** The route's request schemas (zod), so tests can walk every route's fields. */
  schema: { body?: unknown; querystring?: unknown; params?: unknown };
}

export interface BuildAppOptions {
  logger?: boolean;
  /** Where log lines go instead of stdout (tests read them). */
  logStream?: { write(line: string): void };
  isEmailDeliveryStarted?: boolean;
  /** False: the webhook outbox is sent only by app.webhookDelivery.runOnce() (tests). */
  isWebhookDeliveryStarted?: boolean;
  /** False: notaries' archives are built only by app.archiveBuilder.runOnce() or wake(). */
  isArchiveBuilderStarted?: boolean;
}

/** Builds the whole HTTP application from its dependencies; main.ts and the tests both call this. */
export async function buildApp(givenDeps: Deps, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const { config } = givenDeps;
  // Certificates the platform CA issues name its revocation addresses under this URL (decision 057).
  setPkiPublicUrl(config.publicUrl);
  // Payment as configured unless the caller brought its own (decision 050).
  const deps: Deps = { ...givenDeps, payment: givenDeps.payment !== undefined ? givenDeps.payment : createPaymentProvider(config.payment) };
  const app = Fastify({
    logger: options.logger === false ? false : loggerOptions(config, options.logStream),
    bodyLimit: config.limits.bodyBytes,
    // A request must arrive within these bounds (config.timeouts); the body's pace is watched below.
    // A WebSocket leaves them once upgraded (ws turns its socket's idle timeout off).
    http: serverTimeoutOptions(config.timeouts),
    requestTimeout: config.timeouts.requestMs,
    connectionTimeout: config.timeouts.connectionIdleMs,
    clientErrorHandler: createClientErrorHandler(config.timeouts),
    // A path the router cannot read (a broken %-encoding, a part over 100 characters) is refused in
    // the app's shape and with its headers, not Fastify's own body.
    frameworkErrors: createFrameworkErrorHandler(config),
    trustProxy: config.trustProxy,
    genReqId: () => crypto.randomUUID(),
    // Plugins register in milliseconds; on a saturated 2-core machine (CI running two test workers
    // beside an embedded database starting up) avvio's 10 s default fired without a real fault.
    pluginTimeout: 60_000,
    // Request lines are logged by logNotableRequests: failed and slow ones only.
    logController: new LogController({ disableRequestLogging: true }),
  }).withTypeProvider<ZodTypeProvider>();
  logNotableRequests(app, config);
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

  // The webhook outbox (decision 055): every instance sends, each delivery once (tasks/webhook-delivery.ts).
  const webhookDelivery = new WebhookDelivery(deps.db, deps.secretsKey, app.log, {
    pollMs: config.webhooks.pollMs,
    policy: { isHttpAllowed: config.webhooks.isHttpAllowed, isPrivateAllowed: config.webhooks.isPrivateAllowed },
  });
  app.decorate('webhookDelivery', webhookDelivery);
  if (options.isWebhookDeliveryStarted !== false) webhookDelivery.start();
  app.addHook('onClose', async () => webhookDelivery.stop());

  // The notaries' archives (decision 059): built in the background, one at a time per instance (tasks/archive-builder.ts).
  const archiveBuilder = new ArchiveBuilder(
    { db: deps.db, storage: deps.storage, secretsKey: deps.secretsKey, config: { dataDir: config.dataDir, tsaUrl: config.tsaUrl } },
    app.log,
    { pollMs: 15_000 },
  );
  app.decorate('archiveBuilder', archiveBuilder);
  if (options.isArchiveBuilderStarted !== false) archiveBuilder.start();
  app.addHook('onClose', async () => archiveBuilder.stop());

  const sessionCache = new SessionCache(deps.realtime, config.session.cacheMs);
  await sessionCache.start();
  app.addHook('onClose', async () => sessionCache.stop());
  const { video } = deps;
  if (video) {
    const sessions = liveSessionsOf(video);
    // With Redis, sessions' rooms have a home instance and sockets on the others are relayed to it (decision 030).
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
    for (const method of [route.method].flat())
      if (method !== 'HEAD')
        app.apiRoutes.push({
          method,
          url: route.url,
          access,
          apiKeyScope: route.config?.apiKeyScope ?? null,
          schema: { body: route.schema?.body, querystring: route.schema?.querystring, params: route.schema?.params },
        });
  });

  // The API's reference is generated from every route's zod contract (lib/openapi.ts): registered before the routes it lists.
  await app.register(fastifySwagger, openApiOptions(config.publicUrl));
  await app.register(fastifyCookie);
  // The file-size limit sits one byte above the configured one, so the upload code sees the overflow and answers 413 itself.
  // A signaling answer may carry an SDP of 200,000 characters (src/shared/video-signaling.ts); as JSON, its
  // escaped line ends make it larger. Frames beyond this close the socket (1009) before they are read.
  await app.register(fastifyWebsocket, { options: { maxPayload: 512 * 1024 } });
  await app.register(fastifyMultipart, { limits: { fileSize: config.documentMaxBytes + 1, files: 20, fields: 10, parts: 40 }, throwFileSizeLimit: false });
  app.decorateRequest('ctx', null as unknown as Ctx);
  app.decorateRequest('apiKeyCall', null);

  app.addHook('onRequest', async (request, reply) => watchBody(request, reply, config.timeouts));
  // Every statement of a request carries the request's place in the arrival order (db/arrival-order.ts).
  app.addHook('onRequest', (_request, _reply, done) => asOneArrival(done));
  // Who is asking, and may they: before any body is read.
  app.addHook('onRequest', createAccessHook(deps, sessionCache, resolveSession, resolveApiKey));
  // Every call made with an API key, answered or refused, is in the key's audit chain before the answer leaves.
  app.addHook('onSend', async (request, reply, payload) => {
    const key = request.apiKeyCall;
    if (!key) return payload;
    request.apiKeyCall = null;
    try {
      await recordApiKeyCall(
        { db: deps.db, ipAddress: request.ip, userAgent: request.headers['user-agent'] ?? null },
        {
          key,
          method: request.method,
          route: request.routeOptions.url ?? request.url.split('?')[0] ?? '',
          path: request.url.split('?')[0] ?? '',
          status: reply.statusCode,
        },
      );
    } catch (error) {
      request.log.error({ err: error, apiKeyId: key.principal.id }, 'api key call not audited');
    }
    return payload;
  });
  // After each route's schema, one rule for every string: no NUL, no lone surrogate.
  app.addHook('preHandler', refuseUnstorableText);
  app.addHook('onSend', securityHeaders(config));
  app.setErrorHandler(createErrorHandler(config));

  for (const { prefix, routes } of apiRouteTable) await app.register(routes, { prefix });
  // The platform CA's certificate, CRL and OCSP responder, named in every certificate it issues (decision 057).
  await app.register(pkiRoutes, { prefix: '/pki' });
  await registerWebApp(app, config);
  return app;
}
