import { z } from 'zod';

/**
 * Payment of a job (decision 050): an amount held on a card at booking (Stripe) or put on the
 * company's invoice, captured when the notarization completes, released when the job is cancelled.
 * Money is integer cents everywhere.
 */
export const paymentProviders = ['stripe', 'invoice'] as const;
export type PaymentProviderKind = (typeof paymentProviders)[number];

export const paymentStatuses = ['held', 'captured', 'released', 'failed', 'invoiced'] as const;
export type PaymentStatus = (typeof paymentStatuses)[number];

/** What a person reads for each status. */
export const paymentStatusLabels: Record<PaymentStatus, string> = {
  held: 'Held on the card',
  captured: 'Paid',
  released: 'Released',
  failed: 'Failed',
  invoiced: 'To be invoiced',
};

export const paymentNotConfiguredMessage = 'Payment is not configured on this platform.';
/** Stripe takes payment, but without a publishable key no page can collect a card (STRIPE_PUBLISHABLE_KEY). */
export const cardPaymentNotConfiguredMessage = 'Card payment is not configured on this platform.';

/** GET /api/payments/config */
export const paymentConfigSchema = z.discriminatedUnion('configured', [
  z.object({
    configured: z.literal(true),
    provider: z.enum(paymentProviders),
    message: z.string(),
    /** Stripe only: the publishable key Stripe.js collects a card with; null when none is configured (no page can take a card). */
    publishableKey: z.string().nullable().optional(),
  }),
  z.object({ configured: z.literal(false), message: z.string() }),
]);
export type PaymentConfig = z.infer<typeof paymentConfigSchema>;

/** POST /api/jobs/{id}/payment/hold: the card, as a Stripe PaymentMethod id made in the browser by Stripe.js (unused when invoiced). */
export const holdPaymentInputSchema = z
  .object({
    paymentMethod: z
      .string({ message: 'paymentMethod must be a Stripe payment method id (pm_…).' })
      .regex(/^pm_[A-Za-z0-9_]{1,200}$/, { message: 'paymentMethod must be a Stripe payment method id (pm_…).' })
      .optional(),
  })
  .strict();
export type HoldPaymentInput = z.input<typeof holdPaymentInputSchema>;

export const paymentSchema = z.object({
  id: z.string(),
  jobId: z.string(),
  provider: z.enum(paymentProviders),
  status: z.enum(paymentStatuses),
  amountCents: z.number().int(),
  capturedCents: z.number().int().nullable(),
  currency: z.literal('usd'),
  /** The provider's reference (a Stripe PaymentIntent id); null when invoiced. */
  externalId: z.string().nullable(),
  failureMessage: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Payment = z.infer<typeof paymentSchema>;

/** The answer of a hold: the payment and a sentence saying what happened to the money. */
export const heldPaymentSchema = z.object({ payment: paymentSchema, message: z.string() });

/** GET /api/jobs/{id}/payment: the live payment, if any, and every attempt, newest first. */
export const jobPaymentSchema = z.object({
  jobId: z.string(),
  current: paymentSchema.nullable(),
  attempts: z.array(paymentSchema),
});
export type JobPayment = z.infer<typeof jobPaymentSchema>;

/** POST /api/payments/stripe/webhook */
export const webhookReceiptSchema = z.object({ received: z.literal(true), handled: z.boolean(), message: z.string() });
