import type { PaymentProviderKind } from '#shared/payments.ts';
import type { PaymentConfig } from '#server/config.ts';
import { AppError } from '#server/lib/errors.ts';
import { createInvoicePayment } from './invoice-payment.ts';
import { createStripePayment } from './stripe-payment.ts';

/**
 * Where a job's money goes (decision 050). Every call that changes anything carries an idempotency
 * key: the same call sent twice (a retry after a lost answer) changes it once. Amounts are integer
 * cents, in US dollars.
 */
export interface PaymentProvider {
  readonly kind: PaymentProviderKind;
  /** A sentence for people: who takes payment. */
  readonly description: string;
  /** Holds the amount (a card authorisation), or says it will be invoiced. A declined card throws 402 card_declined. */
  hold(input: HoldInput): Promise<PaymentState>;
  /** Takes at most the held amount. */
  capture(input: CaptureInput): Promise<PaymentState>;
  /** Lets go of a hold, nothing charged. */
  release(input: ReleaseInput): Promise<PaymentState>;
  /** The payment as the provider has it now: how a lost webhook or a lost answer is recovered. */
  retrieve(externalId: string): Promise<PaymentState>;
  /** A webhook the provider sent, its signature verified (400 invalid_webhook otherwise); null for an event about something else. */
  parseWebhook(rawBody: Buffer, signatureHeader: string | undefined): PaymentEvent | null;
}

export interface HoldInput {
  jobId: string;
  amountCents: number;
  /** The card (Stripe: a PaymentMethod id made by Stripe.js in the browser). */
  paymentMethod?: string;
  idempotencyKey: string;
  description: string;
}

export interface CaptureInput {
  externalId: string | null;
  amountCents: number;
  idempotencyKey: string;
}

export interface ReleaseInput {
  externalId: string | null;
  idempotencyKey: string;
}

/**
 * A payment as the provider sees it. 'pending': the provider is still working on it (a card waiting
 * for its holder's confirmation, a capture in processing): nothing to record yet.
 */
export interface PaymentState {
  externalId: string | null;
  status: 'held' | 'captured' | 'released' | 'failed' | 'invoiced' | 'pending';
  /** Held (or, invoiced, to be invoiced). */
  amountCents: number;
  /** Taken from the card; null before a capture. */
  capturedCents: number | null;
  /** The provider's words when it refused or failed; null otherwise. */
  failureMessage: string | null;
}

export interface PaymentEvent {
  eventId: string;
  type: string;
  state: PaymentState;
}

/**
 * A call to the provider that failed. `isOutcomeUnknown`: no answer came (the connection broke or
 * timed out), so the provider may or may not have done it; the same idempotency key makes a retry safe,
 * and retrieve() tells what happened.
 */
export class PaymentProviderError extends AppError {
  /** The provider's id of the payment the call was about, when the provider named one (a declined PaymentIntent). */
  externalId: string | null = null;

  constructor(
    statusCode: number,
    code: ConstructorParameters<typeof AppError>[1],
    message: string,
    readonly isOutcomeUnknown: boolean,
    detail?: unknown,
  ) {
    super(statusCode, code, message, detail);
    this.name = 'PaymentProviderError';
  }

  withExternalId(externalId: string | null): this {
    this.externalId = externalId;
    return this;
  }
}

/** The provider the configuration names, or null: payment is not configured. */
export function createPaymentProvider(config: PaymentConfig | null): PaymentProvider | null {
  if (!config) return null;
  return config.kind === 'stripe' ? createStripePayment(config) : createInvoicePayment();
}
