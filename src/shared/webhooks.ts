import { z } from 'zod';

/**
 * Webhooks (decision 055): a title company's HTTPS endpoints receive signed events about its jobs
 * and invoices. The events, the endpoint and delivery contracts, and the words the page shows.
 */
export const webhookEventTypes = [
  'job.created',
  'participant.invited',
  'identity.passed',
  'session.started',
  'recording.stored',
  'document.notarized',
  'job.completed',
  'invoice.issued',
] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];

export const webhookEventLabels: Record<WebhookEventType, string> = {
  'job.created': 'Job created',
  'participant.invited': 'Participant invited',
  'identity.passed': 'Identity passed',
  'session.started': 'Session started',
  'recording.stored': 'Recording stored',
  'document.notarized': 'Document notarized',
  'job.completed': 'Job completed',
  'invoice.issued': 'Invoice issued',
};

/** The headers every delivery carries (docs/WEBHOOKS.md). */
export const webhookHeaders = { id: 'Webhook-Id', timestamp: 'Webhook-Timestamp', signature: 'Webhook-Signature' } as const;

export const webhookUrlMaxLength = 2000;
export const webhookDescriptionMaxLength = 200;

const urlSchema = z
  .string({ message: 'Enter the endpoint’s URL.' })
  .trim()
  .min(1, { message: 'Enter the endpoint’s URL.' })
  .max(webhookUrlMaxLength, { message: `The URL may be at most ${webhookUrlMaxLength} characters.` })
  .refine((value) => URL.canParse(value), { message: 'Enter a full URL, such as https://example.com/hooks/open-ron.' });

const eventsSchema = z
  .array(z.enum(webhookEventTypes, { message: `Events are among: ${webhookEventTypes.join(', ')}.` }), { message: 'Choose at least one event.' })
  .min(1, { message: 'Choose at least one event.' })
  .max(webhookEventTypes.length)
  .transform((events) => webhookEventTypes.filter((type) => events.includes(type)));

const descriptionSchema = z
  .string()
  .trim()
  .max(webhookDescriptionMaxLength, { message: `The description may be at most ${webhookDescriptionMaxLength} characters.` });

/** POST /api/title-companies/{id}/webhooks. */
export const createWebhookEndpointInputSchema = z.object({
  url: urlSchema,
  events: eventsSchema,
  description: descriptionSchema.optional(),
});
export type CreateWebhookEndpointInput = z.input<typeof createWebhookEndpointInputSchema>;

/** PATCH /api/title-companies/{id}/webhooks/{endpointId}: any of the URL, the events and the description. */
export const updateWebhookEndpointInputSchema = z
  .object({ url: urlSchema.optional(), events: eventsSchema.optional(), description: descriptionSchema.optional() })
  .refine((input) => input.url !== undefined || input.events !== undefined || input.description !== undefined, {
    message: 'Send the URL, the events or the description to change.',
  });
export type UpdateWebhookEndpointInput = z.input<typeof updateWebhookEndpointInputSchema>;

export const webhookEndpointSchema = z.object({
  id: z.string(),
  url: z.string(),
  description: z.string().nullable(),
  events: z.array(z.enum(webhookEventTypes)),
  status: z.enum(['active', 'disabled']),
  createdAt: z.string(),
  updatedAt: z.string(),
  disabledAt: z.string().nullable(),
});
export type WebhookEndpoint = z.infer<typeof webhookEndpointSchema>;

export const webhookEndpointListSchema = z.object({ items: z.array(webhookEndpointSchema) });

/** The answer to a creation (or a new secret): the only time the signing secret is shown. */
export const webhookEndpointWithSecretSchema = z.object({ endpoint: webhookEndpointSchema, secret: z.string(), message: z.string() });
export type WebhookEndpointWithSecret = z.infer<typeof webhookEndpointWithSecretSchema>;

export const webhookDeliveryStatuses = ['pending', 'delivered', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof webhookDeliveryStatuses)[number];

export const webhookDeliverySchema = z.object({
  id: z.string(),
  eventId: z.string(),
  eventType: z.string(),
  status: z.enum(webhookDeliveryStatuses),
  attempts: z.number().int(),
  responseStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
  createdAt: z.string(),
  lastAttemptAt: z.string().nullable(),
  nextAttemptAt: z.string().nullable(),
  deliveredAt: z.string().nullable(),
  replayOf: z.string().nullable(),
});
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>;

export const webhookDeliveryQuerySchema = z.object({
  page: z.coerce.number().int().min(1, { message: 'Pages start at 1.' }).max(100_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(100, { message: 'Ask for at most 100 at a time.' }).default(20),
});

export const webhookDeliveryPageSchema = z.object({
  items: z.array(webhookDeliverySchema),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
});
export type WebhookDeliveryPage = z.infer<typeof webhookDeliveryPageSchema>;

export const webhookReplaySchema = z.object({ delivery: webhookDeliverySchema, message: z.string() });

/** A delivery's status in words, for the delivery log. */
export function describeDeliveryStatus(delivery: Pick<WebhookDelivery, 'status' | 'attempts'>): string {
  if (delivery.status === 'delivered') return 'Delivered';
  if (delivery.status === 'failed') return 'Failed, no more tries';
  return delivery.attempts === 0 ? 'Waiting to be sent' : 'Failed, will try again';
}
