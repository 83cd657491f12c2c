import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { webhookHeaders } from '#shared/webhooks.ts';
import { RefusedAddressError, resolveWebhookTarget, type AddressPolicy } from './webhook-address.ts';

/** How long one delivery may take, connection to last byte read. */
/** Why an endpoint could not be reached, in words a company's staff can act on (no error codes). */
function unreachableSentence(code: string | undefined): string {
  if (code === 'ECONNREFUSED') return 'The endpoint refused the connection: check that its server is running and listening.';
  if (code === 'ETIMEDOUT' || code === 'ECONNRESET') return 'The connection to the endpoint broke off: check its server and the network between.';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'The endpoint’s name could not be found: check the address.';
  if (code?.startsWith('CERT_') || code?.includes('CERT') || code === 'DEPTH_ZERO_SELF_SIGNED_CERT') {
    return 'The endpoint’s HTTPS certificate is not trusted: it needs one from a public certificate authority.';
  }
  return 'The endpoint could not be reached: check the address, and that a firewall lets the platform through.';
}

export const webhookTimeoutMs = 10_000;
/** At most this much of an answer is read; the rest is cut off (the body is never kept). */
export const webhookResponseCapBytes = 64 * 1024;

/** The signature of one delivery: HMAC-SHA256 with the endpoint's secret over "{timestamp}.{body}", in hex. */
export function signWebhook(secret: string, timestamp: number, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export interface WebhookAttempt {
  /** The endpoint answered 2xx. */
  isDelivered: boolean;
  /** Its status code, when it answered at all. */
  responseStatus: number | null;
  /** What went wrong, as a sentence; null when delivered. */
  error: string | null;
}

export interface WebhookMessage {
  url: string;
  eventId: string;
  body: string;
  secret: string;
}

/**
 * Sends one delivery: the host is resolved and checked now, and the connection goes to the address
 * checked (a lookup that answers only it). Redirects are not followed; the answer's body is read up
 * to the cap and dropped. Never throws: every outcome is a WebhookAttempt.
 */
export async function sendWebhook(message: WebhookMessage, policy: AddressPolicy, timeoutMs = webhookTimeoutMs): Promise<WebhookAttempt> {
  let target;
  try {
    target = await resolveWebhookTarget(message.url, policy);
  } catch (error) {
    const text = error instanceof RefusedAddressError ? error.message : 'The address could not be checked.';
    return { isDelivered: false, responseStatus: null, error: text };
  }
  const timestamp = Math.floor(Date.now() / 1000);
  // Whatever name the connection asks for, it gets the address checked above (Node asks for all
  // addresses when it may try several families, one otherwise).
  const checked = { address: target.address, family: target.family };
  const lookup = ((_hostname: string, options: { all?: boolean } | undefined, callback: (...answer: unknown[]) => void) => {
    if (options?.all) callback(null, [checked]);
    else callback(null, checked.address, checked.family);
  }) as unknown as LookupFunction;
  const client = target.url.protocol === 'https:' ? https : http;
  return new Promise<WebhookAttempt>((resolve) => {
    let isSettled = false;
    const settle = (attempt: WebhookAttempt) => {
      if (isSettled) return;
      isSettled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(attempt);
    };
    const request = client.request(target.url, {
      method: 'POST',
      lookup,
      // A fresh connection each time: a pooled one may lead to an address checked for another send.
      agent: false,
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(message.body),
        'user-agent': 'OpenRON-Webhooks/1',
        [webhookHeaders.id.toLowerCase()]: message.eventId,
        [webhookHeaders.timestamp.toLowerCase()]: String(timestamp),
        [webhookHeaders.signature.toLowerCase()]: signWebhook(message.secret, timestamp, message.body),
      },
    });
    const timer = setTimeout(
      () =>
        settle({
          isDelivered: false,
          responseStatus: null,
          error: `No answer within ${timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} seconds` : `${timeoutMs} ms`}.`,
        }),
      timeoutMs,
    );
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      const isDelivered = status >= 200 && status < 300;
      const outcome: WebhookAttempt = {
        isDelivered,
        responseStatus: status,
        error: isDelivered
          ? null
          : status >= 300 && status < 400
            ? `The endpoint answered ${status} (a redirect; redirects are not followed).`
            : `The endpoint answered ${status}.`,
      };
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > webhookResponseCapBytes) settle(outcome);
      });
      response.on('end', () => settle(outcome));
      response.on('error', () => settle(outcome));
      response.on('close', () => settle(outcome));
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      settle({ isDelivered: false, responseStatus: null, error: unreachableSentence(error.code) });
    });
    request.end(message.body);
  });
}
