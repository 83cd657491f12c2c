import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in of the few Stripe endpoints the platform uses, for tests only (decision 050):
 * PaymentIntents create (capture_method=manual, confirmed at once), capture, cancel and retrieve,
 * with Stripe's idempotency (a key sent again answers the first answer, and does nothing twice) and
 * its test cards (pm_card_visa holds, pm_card_chargeDeclined is declined, pm_card_authenticationRequired
 * asks for 3-D Secure). Webhooks are signed as Stripe signs them. It can drop the answers of chosen
 * calls after doing them, as a broken connection would.
 */

export interface StandInIntent {
  id: string;
  object: 'payment_intent';
  amount: number;
  amount_capturable: number;
  amount_received: number;
  currency: string;
  capture_method: 'manual' | 'automatic';
  status: 'requires_payment_method' | 'requires_action' | 'requires_capture' | 'succeeded' | 'canceled';
  payment_method: string | null;
  description: string | null;
  metadata: Record<string, string>;
  last_payment_error: { type: string; code: string; decline_code?: string; message: string } | null;
  canceled_at: number | null;
  created: number;
  livemode: false;
}

export interface StandInCall {
  method: string;
  path: string;
  idempotencyKey: string | null;
  /** Whether the call was answered from an earlier one with the same idempotency key. */
  isReplay: boolean;
}

type Operation = 'create' | 'capture' | 'cancel' | 'retrieve';

interface Answer {
  status: number;
  body: unknown;
}

const declined = { type: 'card_error', code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' };

export interface StripeStandIn {
  /** http://127.0.0.1:port, for STRIPE_API_BASE. */
  url: string;
  secretKey: string;
  webhookSecret: string;
  intents: Map<string, StandInIntent>;
  calls: StandInCall[];
  /** How many captures were done (not answered from an idempotency key). */
  capturesDone(intentId?: string): number;
  /** The next `times` calls of this operation are done, then their connection is cut before the answer. */
  dropAnswers(operation: Operation, times: number): void;
  /** Changes an intent as Stripe's dashboard or an expiring authorisation would, without any webhook. */
  setStatus(intentId: string, status: StandInIntent['status']): StandInIntent;
  /** A webhook event about an intent, and its Stripe-Signature header made with the secret (Stripe's scheme). */
  webhookFor(type: string, intent: StandInIntent, options?: { timestamp?: number; secret?: string }): { payload: string; headers: Record<string, string> };
  close(): Promise<void>;
}

/** Stripe's webhook signature: t=<unix seconds>,v1=HMAC-SHA256(secret, `${t}.${payload}`) in hex. */
export function signStripePayload(payload: string, secret: string, timestamp = Math.floor(Date.now() / 1000)): string {
  const signature = createHmac('sha256', secret).update(`${timestamp}.${payload}`, 'utf8').digest('hex');
  return `t=${timestamp},v1=${signature}`;
}

export async function startStripeStandIn(): Promise<StripeStandIn> {
  const secretKey = `sk_test_${randomBytes(12).toString('hex')}`;
  const webhookSecret = `whsec_${randomBytes(16).toString('hex')}`;
  const intents = new Map<string, StandInIntent>();
  const calls: StandInCall[] = [];
  const captures: string[] = [];
  const remembered = new Map<string, { fingerprint: string; answer: Answer }>();
  const drops = new Map<Operation, number>();
  let counter = 0;

  const error = (status: number, body: Record<string, unknown>): Answer => ({ status, body: { error: body } });
  const invalid = (message: string, code = 'parameter_invalid', extra: Record<string, unknown> = {}) =>
    error(400, { type: 'invalid_request_error', code, message, ...extra });

  function create(form: URLSearchParams): Answer {
    const amount = Number(form.get('amount'));
    if (!Number.isInteger(amount) || amount < 50) return invalid('Amount must be at least $0.50 usd', 'amount_too_small', { param: 'amount' });
    if (form.get('currency') !== 'usd') return invalid('This stand-in knows usd only.', 'parameter_invalid', { param: 'currency' });
    if (form.get('capture_method') !== 'manual') return invalid('The platform must hold (capture_method=manual).', 'parameter_invalid');
    if (form.get('confirm') !== 'true') return invalid('The platform confirms at once (confirm=true).', 'parameter_invalid');
    const paymentMethod = form.get('payment_method');
    if (!paymentMethod) return invalid('You must provide a payment method to confirm.', 'parameter_missing', { param: 'payment_method' });
    counter += 1;
    const metadata: Record<string, string> = {};
    for (const [key, value] of form) {
      const match = /^metadata\[(.+)\]$/.exec(key);
      if (match?.[1]) metadata[match[1]] = value;
    }
    const intent: StandInIntent = {
      id: `pi_standin${String(counter).padStart(6, '0')}${randomBytes(4).toString('hex')}`,
      object: 'payment_intent',
      amount,
      amount_capturable: 0,
      amount_received: 0,
      currency: 'usd',
      capture_method: 'manual',
      status: 'requires_capture',
      payment_method: paymentMethod,
      description: form.get('description'),
      metadata,
      last_payment_error: null,
      canceled_at: null,
      created: Math.floor(Date.now() / 1000),
      livemode: false,
    };
    intents.set(intent.id, intent);
    if (paymentMethod === 'pm_card_chargeDeclined') {
      intent.status = 'requires_payment_method';
      intent.last_payment_error = declined;
      return error(402, { ...declined, payment_intent: intent });
    }
    if (paymentMethod === 'pm_card_authenticationRequired') {
      intent.status = 'requires_action';
      return { status: 200, body: intent };
    }
    intent.amount_capturable = amount;
    return { status: 200, body: intent };
  }

  function capture(intent: StandInIntent, form: URLSearchParams): Answer {
    if (intent.status !== 'requires_capture') {
      return invalid(`This PaymentIntent could not be captured because it has a status of ${intent.status}.`, 'payment_intent_unexpected_state', {
        payment_intent: intent,
      });
    }
    const amount = form.has('amount_to_capture') ? Number(form.get('amount_to_capture')) : intent.amount_capturable;
    if (!Number.isInteger(amount) || amount < 1 || amount > intent.amount_capturable) {
      return invalid(`amount_to_capture must be at most ${intent.amount_capturable}.`, 'parameter_invalid', { param: 'amount_to_capture' });
    }
    captures.push(intent.id);
    intent.status = 'succeeded';
    intent.amount_received = amount;
    intent.amount_capturable = 0;
    return { status: 200, body: intent };
  }

  function cancel(intent: StandInIntent): Answer {
    if (intent.status === 'succeeded' || intent.status === 'canceled') {
      return invalid(`You cannot cancel this PaymentIntent because it has a status of ${intent.status}.`, 'payment_intent_unexpected_state', {
        payment_intent: intent,
      });
    }
    intent.status = 'canceled';
    intent.amount_capturable = 0;
    intent.canceled_at = Math.floor(Date.now() / 1000);
    return { status: 200, body: intent };
  }

  function route(method: string, path: string, form: URLSearchParams): { operation: Operation | null; answer: Answer } {
    if (method === 'POST' && path === '/v1/payment_intents') return { operation: 'create', answer: create(form) };
    const match = /^\/v1\/payment_intents\/([A-Za-z0-9_]+)(?:\/(capture|cancel))?$/.exec(path);
    const intent = match?.[1] ? intents.get(match[1]) : undefined;
    const operation: Operation | null = !match ? null : match[2] === 'capture' ? 'capture' : match[2] === 'cancel' ? 'cancel' : 'retrieve';
    if (!match || (operation === 'retrieve' ? method !== 'GET' : method !== 'POST')) {
      return { operation: null, answer: error(404, { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path}).` }) };
    }
    if (!intent) {
      return { operation, answer: error(404, { type: 'invalid_request_error', code: 'resource_missing', message: `No such payment_intent: '${match[1]}'` }) };
    }
    if (operation === 'capture') return { operation, answer: capture(intent, form) };
    if (operation === 'cancel') return { operation, answer: cancel(intent) };
    return { operation, answer: { status: 200, body: intent } };
  }

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = (request.url ?? '/').split('?')[0] ?? '/';
      const method = request.method ?? 'GET';
      const key = typeof request.headers['idempotency-key'] === 'string' ? request.headers['idempotency-key'] : null;
      const send = (answer: Answer, operation: Operation | null) => {
        const left = operation ? (drops.get(operation) ?? 0) : 0;
        if (left > 0) {
          drops.set(operation as Operation, left - 1);
          request.socket.destroy();
          return;
        }
        response.writeHead(answer.status, { 'content-type': 'application/json', 'request-id': `req_${randomBytes(6).toString('hex')}` });
        response.end(JSON.stringify(answer.body));
      };
      if (request.headers.authorization !== `Bearer ${secretKey}`) {
        calls.push({ method, path, idempotencyKey: key, isReplay: false });
        send(error(401, { type: 'invalid_request_error', message: 'Invalid API Key provided.' }), null);
        return;
      }
      const fingerprint = `${method} ${path} ${body}`;
      const earlier = key ? remembered.get(key) : undefined;
      if (earlier) {
        calls.push({ method, path, idempotencyKey: key, isReplay: true });
        const operation = operationOf(method, path);
        if (earlier.fingerprint !== fingerprint) {
          send(
            error(400, {
              type: 'idempotency_error',
              message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
            }),
            operation,
          );
          return;
        }
        send(earlier.answer, operation);
        return;
      }
      calls.push({ method, path, idempotencyKey: key, isReplay: false });
      const { operation, answer } = route(method, path, new URLSearchParams(body));
      if (key && method === 'POST') remembered.set(key, { fingerprint, answer: { status: answer.status, body: JSON.parse(JSON.stringify(answer.body)) } });
      send(answer, operation);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    secretKey,
    webhookSecret,
    intents,
    calls,
    capturesDone: (intentId) => captures.filter((id) => !intentId || id === intentId).length,
    dropAnswers: (operation, times) => drops.set(operation, times),
    setStatus(intentId, status) {
      const intent = intents.get(intentId);
      if (!intent) throw new Error(`no intent ${intentId}`);
      intent.status = status;
      if (status === 'succeeded') {
        intent.amount_received = intent.amount_capturable;
        intent.amount_capturable = 0;
      }
      if (status === 'canceled') {
        intent.amount_capturable = 0;
        intent.canceled_at = Math.floor(Date.now() / 1000);
      }
      return intent;
    },
    webhookFor(type, intent, options = {}) {
      const payload = JSON.stringify({
        id: `evt_${randomBytes(12).toString('hex')}`,
        object: 'event',
        api_version: '2026-10-28.endive',
        created: Math.floor(Date.now() / 1000),
        type,
        data: { object: intent },
        livemode: false,
        pending_webhooks: 1,
        request: { id: null, idempotency_key: null },
      });
      const signature = signStripePayload(payload, options.secret ?? webhookSecret, options.timestamp);
      return { payload, headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': signature } };
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function operationOf(method: string, path: string): Operation | null {
  if (method === 'POST' && path === '/v1/payment_intents') return 'create';
  const match = /^\/v1\/payment_intents\/[A-Za-z0-9_]+(?:\/(capture|cancel))?$/.exec(path);
  if (!match) return null;
  return match[1] === 'capture' ? 'capture' : match[1] === 'cancel' ? 'cancel' : 'retrieve';
}

/** The settings that make a test app's payment provider this stand-in, with any others the test needs. */
export function stripeStandInEnv(
  standIn: Pick<StripeStandIn, 'secretKey' | 'webhookSecret' | 'url'>,
  others: Record<string, string> = {},
): Record<string, string> {
  return {
    PAYMENT_PROVIDER: 'stripe',
    STRIPE_SECRET_KEY: standIn.secretKey,
    STRIPE_WEBHOOK_SECRET: standIn.webhookSecret,
    STRIPE_API_BASE: standIn.url,
    ...others,
  };
}
