import { z } from 'zod';
import { singleLineTextSchema } from './text.ts';

/**
 * A title company's API keys (decision 054): what a key may do, named once for the server's routes,
 * the keys panel and the API reference.
 */
export const apiKeyScopes = ['jobs:read', 'jobs:write', 'documents', 'webhooks'] as const;
export const apiKeyScopeSchema = z.enum(apiKeyScopes);
export type ApiKeyScope = z.infer<typeof apiKeyScopeSchema>;

export const apiKeyScopeLabels: Record<ApiKeyScope, { label: string; description: string }> = {
  'jobs:read': { label: 'Read jobs', description: 'List the company’s jobs and read one job.' },
  'jobs:write': { label: 'Write jobs', description: 'Create and change the company’s jobs and their signers.' },
  documents: { label: 'Documents', description: 'List and upload the documents of the company’s jobs.' },
  webhooks: { label: 'Webhooks', description: 'Manage the company’s webhook endpoints.' },
};

/** Every key starts with this, so a leaked one is recognised (and secret scanners can match it). */
export const apiKeyPrefix = 'ronk_';
/** How many characters of a key are kept in clear and shown in lists: the prefix and 8 more. */
export const apiKeyShownLength = apiKeyPrefix.length + 8;

export const apiKeyNameMaxLength = 80;

export const createApiKeyInputSchema = z.object({
  name: singleLineTextSchema({ label: 'The key name', max: apiKeyNameMaxLength, requiredMessage: 'Name the key after what will use it.' }),
  scopes: z
    .array(apiKeyScopeSchema, { error: 'Choose what the key may do.' })
    .min(1, { message: 'Choose at least one thing the key may do.' })
    .max(apiKeyScopes.length)
    .refine((scopes) => new Set(scopes).size === scopes.length, { message: 'Choose each scope once.' }),
});
export type CreateApiKeyInput = z.input<typeof createApiKeyInputSchema>;

export const apiKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  /** The first characters of the key, e.g. "ronk_Ab3dE9xQ": enough to tell keys apart, never enough to use one. */
  prefix: z.string(),
  scopes: z.array(apiKeyScopeSchema),
  createdAt: z.string(),
  createdByName: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
});
export type ApiKey = z.infer<typeof apiKeySchema>;

export const apiKeyListSchema = z.object({
  items: z.array(apiKeySchema),
  /** Whether the caller may make keys here (the company's title staff, while the company is open and approved). */
  canCreate: z.boolean(),
});
export type ApiKeyList = z.infer<typeof apiKeyListSchema>;

/** POST answers the key itself once; only its hash is kept. */
export const createdApiKeySchema = z.object({ apiKey: apiKeySchema, key: z.string() });
export type CreatedApiKey = z.infer<typeof createdApiKeySchema>;

/**
 * What a route says about API keys in the reference: the scope a key needs to call it, if keys may
 * call it at all.
 */
export const apiKeyMessages = {
  unknown: 'This API key is not valid: it may have been revoked, or its company closed.',
  notAllowed: 'API keys cannot call this route; sign in as a person to use it.',
  missingScope: (scope: ApiKeyScope) => `This API key may not do that: it needs the “${apiKeyScopeLabels[scope].label}” scope.`,
} as const;
