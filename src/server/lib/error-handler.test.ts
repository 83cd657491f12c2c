import { describe, expect, it } from 'vitest';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { createErrorHandler } from './error-handler.ts';

/** The handler's answer to an error, through a reply that records what it is given. */
function answer(error: unknown) {
  const sent: { status?: number; body?: unknown; headers: Record<string, string> } = { headers: {} };
  const reply = {
    code(status: number) {
      sent.status = status;
      return reply;
    },
    header(name: string, value: string) {
      sent.headers[name] = value;
      return reply;
    },
    headers(values: Record<string, string>) {
      Object.assign(sent.headers, values);
      return reply;
    },
    send(body: unknown) {
      sent.body = body;
      return reply;
    },
  };
  const logged: string[] = [];
  const request = { log: { error: () => logged.push('error'), warn: () => logged.push('warn') } };
  createErrorHandler({ limits: { bodyBytes: 1024 } } as never)(error as FastifyError, request as unknown as FastifyRequest, reply as unknown as FastifyReply);
  return { ...sent, logged };
}

describe('the error handler', () => {
  it('answers a deadlock or a serialization failure of PostgreSQL, even wrapped, with 503 and a sentence, never 500', () => {
    for (const code of ['40P01', '40001']) {
      const database = Object.assign(new Error('deadlock detected'), { code });
      for (const error of [database, Object.assign(new Error('Failed query: update …'), { cause: database })]) {
        const sent = answer(error);
        expect(sent.status, code).toBe(503);
        expect(sent.body).toEqual({ error: 'database_busy', message: 'Another change to the same records was made at the same moment. Please try again.' });
        expect(sent.headers['retry-after']).toBe('1');
        expect(sent.logged).toEqual(['warn']);
      }
    }
  });

  it('still answers anything else unexpected with 500, logged, telling nothing of the inside', () => {
    const sent = answer(Object.assign(new Error('relation "x" does not exist'), { code: '42P01' }));
    expect(sent.status).toBe(500);
    expect(sent.body).toEqual({ error: 'internal_error', message: 'Something went wrong on our side. Please try again.' });
    expect(sent.logged).toEqual(['error']);
  });
});
