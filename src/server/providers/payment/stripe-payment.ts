import Stripe from 'stripe';
import type { PaymentConfig } from '#server/config.ts';
import { AppError } from '#server/lib/errors.ts';
import { PaymentProviderError, type PaymentEvent, type PaymentProvider, type PaymentState } from './payment-provider.ts';

type StripeConfig = Extract<PaymentConfig, { kind: 'stripe' }>;

/** How long one call to Stripe may take before it counts as unanswered (the SDK's own default is 80 s). */
const callTimeoutMs = 20_000;

/**
 * Stripe through its official SDK (decision 050): a PaymentIntent with capture_method=manual holds
 * the amount on the card at booking; it is captured (at most what was held) when the notarization
 * completes and cancelled when the job is. Every mutating call carries an idempotency key, which the
 * SDK also sends on its own retries, so a retried call never charges twice.
 */
export function createStripePayment(config: StripeConfig): PaymentProvider {
  const stripe = new Stripe(config.secretKey, {
    maxNetworkRetries: 2,
    timeout: callTimeoutMs,
    telemetry: false,
    appInfo: { name: 'Open RON' },
    // Tests (a local stand-in of the few endpoints used) and self-hosted proxies only.
    ...(config.apiBase ? apiBaseOptions(config.apiBase) : {}),
  });

  async function getIntent(externalId: string): Promise<Stripe.PaymentIntent> {
    try {
      return await stripe.paymentIntents.retrieve(externalId);
    } catch (error) {
      throw toProviderError(error, 'read');
    }
  }

  /**
   * A capture or cancel that Stripe refused because the PaymentIntent had already got there (a retry
   * after a lost answer, or a change made in Stripe's dashboard) is no failure: the state is read back.
   */
  async function settleRefusal(error: unknown, externalId: string, wanted: PaymentState['status'], step: 'capture' | 'release'): Promise<PaymentState> {
    if (error instanceof Stripe.errors.StripeInvalidRequestError) {
      const state = toState(await getIntent(externalId));
      if (state.status === wanted) return state;
    }
    throw toProviderError(error, step);
  }

  return {
    kind: 'stripe',
    description: 'Cards, through Stripe: the estimated charges are held on the card at booking and taken when the notarization completes.',

    async hold({ jobId, amountCents, paymentMethod, idempotencyKey, description }) {
      if (!paymentMethod) {
        throw new AppError(400, 'bad_request', 'Give the card to hold the amount on: paymentMethod, a Stripe payment method id (pm_…) made by Stripe.js.');
      }
      let intent: Stripe.PaymentIntent;
      try {
        intent = await stripe.paymentIntents.create(
          {
            amount: amountCents,
            currency: 'usd',
            capture_method: 'manual',
            confirm: true,
            payment_method: paymentMethod,
            // Confirmed here, server-side: no payment method that would send the person away to a bank's page.
            automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
            description,
            metadata: { jobId },
          },
          { idempotencyKey },
        );
      } catch (error) {
        throw toProviderError(error, 'hold');
      }
      const state = toState(intent);
      if (state.status === 'held') return state;
      // Anything but an authorisation (a bank asking its card holder to confirm) holds nothing: it is let go at once.
      await stripe.paymentIntents.cancel(intent.id, {}, { idempotencyKey: `${idempotencyKey}:release` }).catch(() => undefined);
      throw new PaymentProviderError(
        402,
        'payment_action_required',
        'The card’s bank asks its holder to confirm this payment (3-D Secure), which this platform cannot ask for yet; nothing was held. Use another card.',
        false,
        { status: intent.status },
      ).withExternalId(intent.id);
    },

    async capture({ externalId, amountCents, idempotencyKey }) {
      if (!externalId) throw new AppError(409, 'conflict', 'There is no card hold to capture.');
      try {
        return toState(await stripe.paymentIntents.capture(externalId, { amount_to_capture: amountCents }, { idempotencyKey }));
      } catch (error) {
        return settleRefusal(error, externalId, 'captured', 'capture');
      }
    },

    async release({ externalId, idempotencyKey }) {
      if (!externalId) throw new AppError(409, 'conflict', 'There is no card hold to release.');
      try {
        return toState(await stripe.paymentIntents.cancel(externalId, {}, { idempotencyKey }));
      } catch (error) {
        return settleRefusal(error, externalId, 'released', 'release');
      }
    },

    retrieve: async (externalId) => toState(await getIntent(externalId)),

    parseWebhook(rawBody, signatureHeader) {
      if (!signatureHeader) throw new AppError(400, 'invalid_webhook', 'The webhook has no Stripe-Signature header; it was not sent by Stripe.');
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(rawBody, signatureHeader, config.webhookSecret);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new AppError(
          400,
          'invalid_webhook',
          /timestamp outside the tolerance/i.test(reason)
            ? 'The webhook’s signature is more than 5 minutes old; a replayed webhook is refused.'
            : 'The webhook’s signature does not match this platform’s signing secret (STRIPE_WEBHOOK_SECRET); it was refused.',
        );
      }
      // Signed, so Stripe's; still read as data of an unknown shape, so a changed event format answers a sentence, not a 500.
      const shape = event as unknown as { id?: unknown; type?: unknown; data?: { object?: unknown } | null } | null;
      if (typeof shape !== 'object' || shape === null || Array.isArray(shape) || typeof shape.type !== 'string' || typeof shape.id !== 'string') {
        throw new AppError(400, 'invalid_webhook', 'The webhook is signed but is not a Stripe event (an object with an id and a type).');
      }
      if (!shape.type.startsWith('payment_intent.')) return null;
      const intent = (typeof shape.data === 'object' && shape.data !== null ? shape.data.object : null) as Stripe.PaymentIntent | null;
      if (!intent || typeof intent !== 'object' || intent.object !== 'payment_intent' || typeof intent.id !== 'string') {
        throw new AppError(400, 'invalid_webhook', 'The webhook names a PaymentIntent event but carries no PaymentIntent.');
      }
      return { eventId: event.id, type: event.type, state: toState(intent) } satisfies PaymentEvent;
    },
  };
}

/** host, port and protocol of the SDK from one URL. */
function apiBaseOptions(apiBase: string): Pick<Stripe.StripeConfig, 'host' | 'port' | 'protocol'> {
  const url = new URL(apiBase);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return { host: url.hostname, port: url.port || (protocol === 'http' ? 80 : 443), protocol };
}

/** A PaymentIntent as a payment of ours. */
function toState(intent: Stripe.PaymentIntent): PaymentState {
  const failureMessage = intent.last_payment_error?.message ?? null;
  const base = { externalId: intent.id, amountCents: intent.amount, capturedCents: null, failureMessage };
  switch (intent.status) {
    case 'requires_capture':
      return { ...base, status: 'held' };
    case 'succeeded':
      return { ...base, status: 'captured', capturedCents: intent.amount_received };
    case 'canceled':
      return { ...base, status: 'released' };
    case 'requires_payment_method':
      return { ...base, status: 'failed', failureMessage: failureMessage ?? 'The card was not accepted.' };
    default:
      return { ...base, status: 'pending' };
  }
}

/** A failure of the SDK as an error in the app's shape: who refused, in a sentence. */
function toProviderError(error: unknown, step: 'hold' | 'capture' | 'release' | 'read'): PaymentProviderError {
  if (!(error instanceof Stripe.errors.StripeError)) {
    return new PaymentProviderError(
      502,
      'payment_provider_error',
      `The call to Stripe failed: ${error instanceof Error ? error.message : String(error)}`,
      true,
    );
  }
  const externalId = error.payment_intent?.id ?? null;
  if (error instanceof Stripe.errors.StripeCardError) {
    return new PaymentProviderError(
      402,
      'card_declined',
      step === 'hold' ? 'The card was declined; nothing was held. Use another card.' : 'The card was declined; nothing was taken.',
      false,
      error.message,
    ).withExternalId(externalId);
  }
  if (error instanceof Stripe.errors.StripeConnectionError) {
    return new PaymentProviderError(
      502,
      'payment_provider_unavailable',
      'Stripe did not answer. Whether it acted is checked with Stripe before anything is tried again; try again in a moment.',
      true,
    ).withExternalId(externalId);
  }
  if (error instanceof Stripe.errors.StripeAuthenticationError || error instanceof Stripe.errors.StripePermissionError) {
    return new PaymentProviderError(
      502,
      'payment_provider_error',
      'Stripe refused this platform’s key (STRIPE_SECRET_KEY); an administrator must correct it.',
      false,
    );
  }
  const isUnknown = error instanceof Stripe.errors.StripeAPIError || error instanceof Stripe.errors.StripeRateLimitError;
  return new PaymentProviderError(
    502,
    'payment_provider_error',
    `Stripe refused the ${step === 'read' ? 'lookup' : step}: ${error.message}`,
    isUnknown,
  ).withExternalId(externalId);
}
