import { AppError } from '#server/lib/errors.ts';
import type { PaymentProvider, PaymentState } from './payment-provider.ts';

/**
 * "Invoice the company" (decision 050): nothing leaves the platform. The charges of a completed job
 * (job_charges) go on the company's next invoice, which the invoicing feature makes; hold, capture
 * and release only answer what will be invoiced.
 */
export function createInvoicePayment(): PaymentProvider {
  const invoiced = (amountCents: number, capturedCents: number | null): PaymentState => ({
    externalId: null,
    status: 'invoiced',
    amountCents,
    capturedCents,
    failureMessage: null,
  });
  const noWebhooks = () => new AppError(400, 'invalid_webhook', 'This platform takes payment by invoice; it expects no payment webhooks.');
  return {
    kind: 'invoice',
    description: 'The charges of each completed job go on the title company’s next invoice.',
    hold: async ({ amountCents }) => invoiced(amountCents, null),
    capture: async ({ amountCents }) => invoiced(amountCents, amountCents),
    release: async () => ({ externalId: null, status: 'released', amountCents: 0, capturedCents: null, failureMessage: null }),
    retrieve: async () => {
      throw new AppError(409, 'conflict', 'An invoiced payment has nothing to check with a provider: it goes on the company’s next invoice.');
    },
    parseWebhook: () => {
      throw noWebhooks();
    },
  };
}
