import type { FastifyBaseLogger } from 'fastify';
import type { ApiKeyScope } from '#shared/api-keys.ts';
import type { SessionUser } from '#shared/auth.ts';
import type { Role } from '#shared/roles.ts';
import type { Config } from '#server/config.ts';
import type { Db, DbOrTx } from '#server/db/client.ts';
import type { PaymentProvider } from '#server/providers/payment/payment-provider.ts';
import type { RealtimeProvider } from '#server/providers/realtime/realtime.ts';
import type { StorageProvider } from '#server/providers/storage/storage.ts';
import type { VideoProvider } from '#server/providers/video/video-provider.ts';
import type { SessionCache } from './session-cache.ts';

/** Long-lived pieces built once by main.ts (or a test) and handed to buildApp. */
export interface Deps {
  db: Db;
  dbKind: 'pglite' | 'postgres';
  config: Config;
  realtime: RealtimeProvider;
  secretsKey: Buffer;
  storage: StorageProvider;
  /** The media hub on this instance, when it runs here (rooms are named by session id). */
  video?: VideoProvider;
  /** Who takes payment (decision 050); null: not configured. Left out, buildApp makes it from config.payment. */
  payment?: PaymentProvider | null;
}

/** Who is asking, from where, with what: passed to every service call. */
export interface Ctx {
  db: DbOrTx;
  config: Config;
  realtime: RealtimeProvider;
  sessionCache: SessionCache;
  log: FastifyBaseLogger;
  user: SessionUser | null;
  sessionId: string | null;
  /** The session proved the password only; it may call nothing but the MFA routes. */
  isMfaPending: boolean;
  /** The remember-this-device cookie, if the browser sent one. */
  deviceToken: string | null;
  secretsKey: Buffer;
  storage: StorageProvider;
  video?: VideoProvider;
  /** Who takes payment; null: payment is not configured, and nothing is ever charged. */
  payment: PaymentProvider | null;
  ipAddress: string;
  userAgent: string | null;
  requestId: string;
  /**
   * The title company's API key the request came with (decision 054); user is then null. The key
   * acts as its company, with its scopes only, on the routes that declare config.apiKeyScope.
   */
  apiKey?: ApiKeyPrincipal | null;
}

/** Who is asking when an API key calls: a company, through one of its keys. */
export interface ApiKeyPrincipal {
  id: string;
  name: string;
  prefix: string;
  companyId: string;
  scopes: readonly ApiKeyScope[];
}

/**
 * Who may call a route: anyone, any signed-in person, people holding one of the roles, or 'mfa':
 * a person between password and second factor (or signed in fully).
 */
export type Access = 'public' | 'signed-in' | 'mfa' | readonly Role[];
