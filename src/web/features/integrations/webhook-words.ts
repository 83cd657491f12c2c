import { formatDateTime } from '#shared/dates.ts';
import { describeDeliveryStatus, webhookEventLabels, webhookEventTypes, type WebhookDelivery, type WebhookEndpoint } from '#shared/webhooks.ts';

/** The words of the webhooks panel, apart from React so they can be tested. */

const relativeUnits: Array<{ unit: Intl.RelativeTimeFormatUnit; seconds: number }> = [
  { unit: 'day', seconds: 86_400 },
  { unit: 'hour', seconds: 3_600 },
  { unit: 'minute', seconds: 60 },
];

/** "3 minutes ago", "in 5 minutes", "just now". */
export function describeFromNow(value: string, now: number): string {
  const seconds = Math.round((Date.parse(value) - now) / 1000);
  if (Number.isNaN(seconds)) return '';
  const format = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
  for (const { unit, seconds: size } of relativeUnits) {
    if (Math.abs(seconds) >= size) return format.format(Math.round(seconds / size), unit);
  }
  return Math.abs(seconds) < 10 ? 'just now' : format.format(seconds, 'second');
}

/** "Job created", or the type itself for one this version does not name. */
export function describeEventType(type: string): string {
  return (webhookEventTypes as readonly string[]).includes(type) ? webhookEventLabels[type as keyof typeof webhookEventLabels] : type;
}

/** "Job created, Job completed" or "All 8 events". */
export function describeEndpointEvents(endpoint: Pick<WebhookEndpoint, 'events'>): string {
  if (endpoint.events.length === webhookEventTypes.length) return `All ${webhookEventTypes.length} events`;
  return endpoint.events.map(describeEventType).join(', ');
}

/** One line of the delivery log: what happened, the answer, when, how many tries, what comes next. */
export function describeDelivery(delivery: WebhookDelivery, now: number, timeZone?: string) {
  const when = formatDateTime(delivery.createdAt, { timeZone });
  const tries = delivery.attempts === 1 ? '1 try' : `${delivery.attempts} tries`;
  const next =
    delivery.status === 'pending' && delivery.attempts > 0 && delivery.nextAttemptAt ? `next try ${describeFromNow(delivery.nextAttemptAt, now)}` : null;
  return {
    event: describeEventType(delivery.eventType),
    status: describeDeliveryStatus(delivery),
    response: delivery.responseStatus === null ? 'No answer' : `Answered ${delivery.responseStatus}`,
    when: `${when} (${describeFromNow(delivery.createdAt, now)})`,
    tries,
    next,
    isReplay: delivery.replayOf !== null,
  };
}
