import path from 'node:path';
import { z } from 'zod';
import { roles, type Role } from '#shared/roles.ts';
import { parseIceServers } from './providers/video/video-provider.ts';

const booleanFromString = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((value) => value === 'true' || value === '1' || value === 'yes');

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  PUBLIC_URL: z.url().optional(),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'DATABASE_URL must start with postgres:// or postgresql://')
    .optional(),
  /** Minutes between two VACUUM (ANALYZE) and CHECKPOINT passes on the embedded database; 0 turns them off. */
  EMBEDDED_VACUUM_MINUTES: z.coerce
    .number()
    .min(0)
    .max(7 * 24 * 60)
    .default(60),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'REDIS_URL must start with redis:// or rediss://')
    .optional(),
  SESSION_TTL_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 30)
    .default(12),
  SESSION_CACHE_SECONDS: z.coerce.number().int().min(0).max(300).default(30),
  COOKIE_SECURE: booleanFromString.optional(),
  LOGIN_MAX_FAILURES_PER_ACCOUNT: z.coerce.number().int().positive().default(10),
  LOGIN_MAX_ATTEMPTS_PER_ADDRESS: z.coerce.number().int().positive().default(50),
  LOGIN_WINDOW_MINUTES: z.coerce.number().int().positive().default(15),
  REGISTRATIONS_PER_ADDRESS_PER_HOUR: z.coerce.number().int().positive().default(20),
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
  // A 50 MB upload on a 1 Mbit/s line takes about 7 minutes: the whole request may take 10; its body
  // must keep arriving at 1 KB/s or more, judged every 30 s, so a stalled or trickling client is cut early.
  REQUEST_TIMEOUT_SECONDS: z.coerce.number().positive().max(86_400).default(600),
  HEADERS_TIMEOUT_SECONDS: z.coerce.number().positive().max(600).default(30),
  BODY_IDLE_SECONDS: z.coerce.number().positive().max(3600).default(30),
  BODY_MIN_BYTES_PER_SECOND: z.coerce.number().int().min(0).default(1024),
  CONNECTION_IDLE_SECONDS: z.coerce.number().min(0).max(86_400).default(300),
  TRUST_PROXY: booleanFromString.default(false),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  CHAT_WIDGET_URL: z.url().optional(),
  SECRETS_KEY: z
    .string()
    .refine((value) => Buffer.from(value, 'base64').length === 32, 'SECRETS_KEY must be 32 bytes, base64 encoded (openssl rand -base64 32)')
    .optional(),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'SMTP_URL must start with smtp:// or smtps://')
    .optional(),
  MAIL_FROM: z.string().default('Open RON <no-reply@localhost>'),
  SUPPORT_EMAIL: z.email({ message: 'SUPPORT_EMAIL must be an email address.' }).optional(),
  EMAIL_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
  EMAIL_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(8),
  TSA_URL: z.url().optional(),
  /** Minutes between two passes of the archive-timestamp renewal (decision 058); 0 turns it off. */
  ARCHIVE_RENEWAL_INTERVAL_MINUTES: z.coerce
    .number()
    .min(0)
    .max(7 * 24 * 60)
    .default(6 * 60),
  /** A document's archive timestamp is renewed once its TSA certificate expires within this many days. */
  ARCHIVE_RENEWAL_WINDOW_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
  DOCUMENT_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(50 * 1024 * 1024),
  S3_BUCKET: z.string().optional(),
  S3_ENDPOINT: z.url().optional(),
  S3_REGION: z.string().default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  S3_FORCE_PATH_STYLE: booleanFromString.default(true),
  MFA_REQUIRED_ROLES: z.string().default('notary,admin,billing,finance'),
  PASSWORD_RESETS_PER_EMAIL_PER_HOUR: z.coerce.number().int().positive().default(3),
  PASSWORD_RESETS_PER_ADDRESS_PER_HOUR: z.coerce.number().int().positive().default(10),
  EMAIL_CODES_PER_USER_PER_HOUR: z.coerce.number().int().positive().default(6),
  WEB_DIST_DIR: z.string().default('./dist/web'),
  /** 'allow' lets the development KBA provider run with NODE_ENV=production (it proves nothing: decision 025). */
  IDENTITY_DEV_PROVIDER: z.enum(['allow'], { message: 'IDENTITY_DEV_PROVIDER is either unset or allow.' }).optional(),
  /** How long the analysis of one upload of ID photos may run before it is stopped and fails. */
  IDENTITY_ANALYSIS_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(20_000),
  RECORDING_RETENTION_YEARS: z.coerce.number().int().min(1).max(100).default(10),
  ICE_SERVERS: z
    .string()
    .optional()
    .transform((value, context) => {
      try {
        return parseIceServers(value);
      } catch (error) {
        context.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    }),
  ICE_TRANSPORT_POLICY: z
    .enum(['all', 'relay'], { message: 'ICE_TRANSPORT_POLICY must be all (any path) or relay (media only through the TURN servers of ICE_SERVERS).' })
    .default('all'),
  /** Who takes payment (decision 050): unset, nothing is charged and anything that needs payment says it is not configured. */
  PAYMENT_PROVIDER: z.enum(['stripe', 'invoice'], { message: 'PAYMENT_PROVIDER is either unset, stripe or invoice.' }).optional(),
  STRIPE_SECRET_KEY: z
    .string()
    .regex(/^(sk|rk)_\S+$/, 'STRIPE_SECRET_KEY must be a Stripe secret or restricted key (sk_… or rk_…).')
    .optional(),
  STRIPE_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_\S+$/, 'STRIPE_WEBHOOK_SECRET must be the signing secret of the webhook endpoint (whsec_…).')
    .optional(),
  /**
   * The account's publishable key, for Stripe.js in the browser (the Notarize Now card form, decision 051).
   * Unset with PAYMENT_PROVIDER=stripe: holds still work for cards given otherwise, but no page collects a card.
   */
  STRIPE_PUBLISHABLE_KEY: z
    .string()
    .regex(/^pk_(test|live)_\S+$/, 'STRIPE_PUBLISHABLE_KEY must be the account’s publishable key (pk_test_… or pk_live_…).')
    .optional(),
  /** Tests and self-hosted proxies only: where the Stripe SDK sends its calls instead of https://api.stripe.com. */
  STRIPE_API_BASE: z.url({ message: 'STRIPE_API_BASE must be a URL such as http://127.0.0.1:12111.' }).optional(),
  /** Webhooks (decision 055): http:// endpoint URLs are accepted. For tests and closed networks only. */
  WEBHOOK_ALLOW_HTTP: booleanFromString.default(false),
  /** Webhooks (decision 055): endpoints on loopback, private, link-local and other non-public addresses are accepted. */
  WEBHOOK_ALLOW_PRIVATE_ADDRESSES: booleanFromString.default(false),
  /** Milliseconds between two passes of the webhook sender. */
  WEBHOOK_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
  /** Notarize Now (decision 051): how long an instant request is offered to notaries before the page offers a scheduled time. */
  GNW_SEARCH_SECONDS: z.coerce
    .number({ message: 'GNW_SEARCH_SECONDS must be a whole number of seconds from 30 to 3600.' })
    .int({ message: 'GNW_SEARCH_SECONDS must be a whole number of seconds from 30 to 3600.' })
    .min(30, { message: 'GNW_SEARCH_SECONDS must be a whole number of seconds from 30 to 3600.' })
    .max(3600, { message: 'GNW_SEARCH_SECONDS must be a whole number of seconds from 30 to 3600.' })
    .default(300),
});

export type Config = ReturnType<typeof parseConfig>;

export type PaymentConfig =
  | { kind: 'invoice' }
  | {
      kind: 'stripe';
      secretKey: string;
      webhookSecret: string;
      /** Tests and self-hosted proxies only; null: the SDK's own https://api.stripe.com. */
      apiBase: string | null;
      /** For Stripe.js in the browser; null: no page collects a card (the card form says card payment is not configured). */
      publishableKey: string | null;
    };

function paymentConfig(values: z.output<typeof envSchema>): PaymentConfig | null {
  if (values.PAYMENT_PROVIDER === 'invoice') return { kind: 'invoice' };
  if (values.PAYMENT_PROVIDER === 'stripe' && values.STRIPE_SECRET_KEY && values.STRIPE_WEBHOOK_SECRET) {
    return {
      kind: 'stripe',
      secretKey: values.STRIPE_SECRET_KEY,
      webhookSecret: values.STRIPE_WEBHOOK_SECRET,
      apiBase: values.STRIPE_API_BASE ?? null,
      publishableKey: values.STRIPE_PUBLISHABLE_KEY ?? null,
    };
  }
  return null;
}

/** Parses every environment variable once; the defaults run fully embedded (PGlite in ./data). */
export function parseConfig(env: Record<string, string | undefined>) {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => {
        const name = issue.path.join('.');
        return issue.message.startsWith(`${name} `) ? issue.message : `${name}: ${issue.message}`;
      })
      .join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  const values = parsed.data;
  const hasTurn = values.ICE_SERVERS.some((server) => (typeof server.urls === 'string' ? [server.urls] : server.urls).some((url) => /^turns?:/i.test(url)));
  if (values.ICE_TRANSPORT_POLICY === 'relay' && !hasTurn) {
    throw new Error(
      'Invalid configuration: ICE_TRANSPORT_POLICY=relay sends all media through a TURN server, but ICE_SERVERS names none (add a turn: or turns: url with its username and credential).',
    );
  }
  if (values.HEADERS_TIMEOUT_SECONDS > values.REQUEST_TIMEOUT_SECONDS) {
    throw new Error('Invalid configuration: HEADERS_TIMEOUT_SECONDS may not exceed REQUEST_TIMEOUT_SECONDS (the headers are part of the request).');
  }
  if (values.CONNECTION_IDLE_SECONDS > 0 && values.CONNECTION_IDLE_SECONDS < 2 * values.BODY_IDLE_SECONDS) {
    throw new Error(
      'Invalid configuration: CONNECTION_IDLE_SECONDS must be 0 (off) or at least twice BODY_IDLE_SECONDS, so a stalled upload is answered 408 before its connection is dropped.',
    );
  }
  if (values.PAYMENT_PROVIDER === 'stripe' && (!values.STRIPE_SECRET_KEY || !values.STRIPE_WEBHOOK_SECRET)) {
    const missing = [values.STRIPE_SECRET_KEY ? null : 'STRIPE_SECRET_KEY', values.STRIPE_WEBHOOK_SECRET ? null : 'STRIPE_WEBHOOK_SECRET'].filter(Boolean);
    throw new Error(
      `Invalid configuration: PAYMENT_PROVIDER=stripe needs ${missing.join(' and ')} (the secret key of the Stripe account, and the signing secret of its webhook endpoint for PUBLIC_URL/api/payments/stripe/webhook).`,
    );
  }
  if (values.PAYMENT_PROVIDER !== 'stripe' && (values.STRIPE_SECRET_KEY || values.STRIPE_WEBHOOK_SECRET || values.STRIPE_API_BASE)) {
    throw new Error(
      `Invalid configuration: STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET and STRIPE_API_BASE are used only with PAYMENT_PROVIDER=stripe (it is ${values.PAYMENT_PROVIDER ?? 'unset'}); set PAYMENT_PROVIDER=stripe or remove them.`,
    );
  }
  if (values.PAYMENT_PROVIDER !== 'stripe' && values.STRIPE_PUBLISHABLE_KEY) {
    throw new Error(
      `Invalid configuration: STRIPE_PUBLISHABLE_KEY is used only with PAYMENT_PROVIDER=stripe (it is ${values.PAYMENT_PROVIDER ?? 'unset'}); set PAYMENT_PROVIDER=stripe or remove it.`,
    );
  }
  const publicUrl = new URL(values.PUBLIC_URL ?? `http://localhost:${values.PORT}`);
  return {
    nodeEnv: values.NODE_ENV,
    host: values.HOST,
    port: values.PORT,
    publicUrl: publicUrl.origin,
    dataDir: path.resolve(values.DATA_DIR),
    databaseUrl: values.DATABASE_URL ?? null,
    /** Embedded PGlite only: the interval of tasks/embedded-maintenance.ts. */
    embeddedVacuumMs: values.EMBEDDED_VACUUM_MINUTES * 60_000,
    redisUrl: values.REDIS_URL ?? null,
    session: {
      ttlMs: values.SESSION_TTL_HOURS * 3600_000,
      cacheMs: values.SESSION_CACHE_SECONDS * 1000,
      cookieSecure: values.COOKIE_SECURE ?? publicUrl.protocol === 'https:',
    },
    limits: {
      loginFailuresPerAccount: values.LOGIN_MAX_FAILURES_PER_ACCOUNT,
      loginAttemptsPerAddress: values.LOGIN_MAX_ATTEMPTS_PER_ADDRESS,
      loginWindowMs: values.LOGIN_WINDOW_MINUTES * 60_000,
      registrationsPerAddressPerHour: values.REGISTRATIONS_PER_ADDRESS_PER_HOUR,
      bodyBytes: values.BODY_LIMIT_BYTES,
      passwordResetsPerEmailPerHour: values.PASSWORD_RESETS_PER_EMAIL_PER_HOUR,
      passwordResetsPerAddressPerHour: values.PASSWORD_RESETS_PER_ADDRESS_PER_HOUR,
      emailCodesPerUserPerHour: values.EMAIL_CODES_PER_USER_PER_HOUR,
    },
    /** How long a client may take to send a request (lib/request-timeouts.ts); WebSockets are not bound by them. */
    timeouts: {
      requestMs: Math.round(values.REQUEST_TIMEOUT_SECONDS * 1000),
      headersMs: Math.round(values.HEADERS_TIMEOUT_SECONDS * 1000),
      bodyWindowMs: Math.round(values.BODY_IDLE_SECONDS * 1000),
      bodyMinBytesPerSecond: values.BODY_MIN_BYTES_PER_SECOND,
      /** A connection with no traffic either way for this long is closed; 0 never. */
      connectionIdleMs: Math.round(values.CONNECTION_IDLE_SECONDS * 1000),
    },
    trustProxy: values.TRUST_PROXY,
    logLevel: values.LOG_LEVEL,
    chatWidgetUrl: values.CHAT_WIDGET_URL ?? null,
    storage: values.S3_BUCKET
      ? {
          kind: 's3' as const,
          bucket: values.S3_BUCKET,
          endpoint: values.S3_ENDPOINT ?? null,
          region: values.S3_REGION,
          accessKeyId: values.S3_ACCESS_KEY_ID ?? '',
          secretAccessKey: values.S3_SECRET_ACCESS_KEY ?? '',
          forcePathStyle: values.S3_FORCE_PATH_STYLE,
        }
      : { kind: 'local' as const, root: path.resolve(values.DATA_DIR, 'blobs') },
    documentMaxBytes: values.DOCUMENT_MAX_BYTES,
    /** An RFC 3161 time-stamping authority; when set, every notarized PDF carries a trusted timestamp. */
    tsaUrl: values.TSA_URL ?? null,
    /** The archive-timestamp renewal (tasks/archive-timestamp-renewal.ts): how often, and how long before expiry. */
    archiveRenewal: { everyMs: values.ARCHIVE_RENEWAL_INTERVAL_MINUTES * 60_000, windowMs: values.ARCHIVE_RENEWAL_WINDOW_DAYS * 86_400_000 },
    /** Null means: main.ts reads or creates DATA_DIR/secrets.key. */
    secretsKey: values.SECRETS_KEY ? Buffer.from(values.SECRETS_KEY, 'base64') : null,
    email: {
      smtpUrl: values.SMTP_URL ?? null,
      from: values.MAIL_FROM,
      /** Whom applicants write to about a decision; unset, the reviewing administrator's address (decision 014). */
      supportAddress: values.SUPPORT_EMAIL ?? null,
      pollMs: values.EMAIL_POLL_MS,
      maxAttempts: values.EMAIL_MAX_ATTEMPTS,
    },
    mfa: {
      requiredRoles: values.MFA_REQUIRED_ROLES.split(',')
        .map((role) => role.trim())
        .filter((role): role is Role => (roles as readonly string[]).includes(role)),
    },
    webDistDir: path.resolve(values.WEB_DIST_DIR),
    /** Identity proofing (decision 025): which identity-data provider makes the knowledge-based questions. */
    identity: { developmentProvider: values.IDENTITY_DEV_PROVIDER ?? null, analysisTimeoutMs: values.IDENTITY_ANALYSIS_TIMEOUT_MS },
    /** Who takes payment (decision 050); null: payment is not configured and nothing is ever charged. */
    payment: paymentConfig(values),
    /** Webhooks (decision 055): the address rules and the sender's pace. */
    webhooks: {
      isHttpAllowed: values.WEBHOOK_ALLOW_HTTP,
      isPrivateAllowed: values.WEBHOOK_ALLOW_PRIVATE_ADDRESSES,
      pollMs: values.WEBHOOK_POLL_MS,
    },
    /** Notarize Now (decision 051): an instant request searches this long, then is unmatched. */
    gnw: { searchSeconds: values.GNW_SEARCH_SECONDS },
    /** Options of the media hub (createWeriftSfu): STUN/TURN servers its peers gather candidates from. */
    video: {
      iceServers: values.ICE_SERVERS,
      /** What browsers are told to use (the welcome message): 'relay' forces every path through TURN. */
      iceTransportPolicy: values.ICE_TRANSPORT_POLICY,
      /** How long a stopped recording and its segments are kept before they may be deleted. */
      recordingRetentionYears: values.RECORDING_RETENTION_YEARS,
    },
  };
}
