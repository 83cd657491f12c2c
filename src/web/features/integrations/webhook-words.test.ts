import { describe, expect, it } from 'vitest';
import type { WebhookDelivery } from '#shared/webhooks.ts';
import { describeDelivery, describeEndpointEvents, describeFromNow } from './webhook-words.ts';

const now = Date.parse('2026-11-27T22:00:00Z');
const delivery: WebhookDelivery = {
  id: 'd1',
  eventId: 'e1',
  eventType: 'job.created',
  status: 'pending',
  attempts: 2,
  responseStatus: 500,
  lastError: 'The endpoint answered 500.',
  createdAt: '2026-11-27T21:57:00Z',
  lastAttemptAt: '2026-11-27T21:59:00Z',
  nextAttemptAt: '2026-11-27T22:05:00Z',
  deliveredAt: null,
  replayOf: null,
};

describe('the words of the delivery log', () => {
  it('says what a retried delivery is waiting for, in words and human times', () => {
    expect(describeDelivery(delivery, now, 'UTC')).toEqual({
      event: 'Job created',
      status: 'Failed, will try again',
      response: 'Answered 500',
      when: 'Nov 27, 2026, 9:57 PM UTC (3 minutes ago)',
      tries: '2 tries',
      next: 'next try in 5 minutes',
      isReplay: false,
    });
  });

  it('names a delivered one, one not yet tried, and the events of an endpoint', () => {
    expect(describeDelivery({ ...delivery, status: 'delivered', responseStatus: 204, attempts: 1 }, now, 'UTC')).toMatchObject({
      status: 'Delivered',
      response: 'Answered 204',
      tries: '1 try',
      next: null,
    });
    expect(describeDelivery({ ...delivery, attempts: 0, responseStatus: null }, now, 'UTC')).toMatchObject({
      status: 'Waiting to be sent',
      response: 'No answer',
    });
    expect(describeEndpointEvents({ events: ['job.created', 'invoice.issued'] })).toBe('Job created, Invoice issued');
    expect(describeFromNow('2026-11-27T21:59:58Z', now)).toBe('just now');
  });
});
