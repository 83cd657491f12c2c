import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '#server/config.ts';
import { securityHeaders } from './security-headers.ts';

async function headersFor(env: Record<string, string>, url = '/api/thing') {
  const app = Fastify({ logger: false });
  app.addHook('onSend', securityHeaders(parseConfig(env)));
  app.get('/api/thing', async () => ({ ok: true }));
  app.get('/api/cached', async (_request, reply) => reply.header('cache-control', 'private, max-age=60').send({ ok: true }));
  app.get('/page', async () => 'page');
  // Decision 053: a sandboxed page keeps its own CSP only if it starts with the sandbox directive.
  const sandboxed = { config: { isSandboxedPage: true } };
  app.get('/api/sandboxed', sandboxed, async (_request, reply) =>
    reply.header('content-security-policy', "sandbox allow-scripts; default-src 'none'").header('referrer-policy', 'unsafe-url').send('ok'),
  );
  app.get('/api/sandboxed-weak', sandboxed, async (_request, reply) => reply.header('content-security-policy', 'default-src *').send('ok'));
  app.get('/api/unsandboxed', async (_request, reply) => reply.header('content-security-policy', "sandbox allow-scripts; default-src 'none'").send('ok'));
  try {
    return (await app.inject({ method: 'GET', url })).headers;
  } finally {
    await app.close();
  }
}

describe('securityHeaders', () => {
  it('keeps a sandboxed page’s own sandbox CSP with no referrer, and the app’s CSP for anything weaker or undeclared', async () => {
    const own = await headersFor({}, '/api/sandboxed');
    expect(own['content-security-policy']).toBe("sandbox allow-scripts; default-src 'none'");
    expect(own['referrer-policy']).toBe('no-referrer');
    for (const url of ['/api/sandboxed-weak', '/api/unsandboxed']) {
      const headers = await headersFor({}, url);
      expect(String(headers['content-security-policy'])).toMatch(/^default-src 'self';/);
      expect(headers['referrer-policy']).toBe('same-origin');
    }
  });

  it('adds HSTS only when the public URL is https', async () => {
    expect((await headersFor({ PUBLIC_URL: 'https://ron.example.test' }))['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    expect((await headersFor({ PUBLIC_URL: 'http://localhost:3000' }))['strict-transport-security']).toBeUndefined();
  });

  it('lets the configured chat widget origin load scripts, connect and frame, and nothing else outside', async () => {
    const headers = await headersFor({ CHAT_WIDGET_URL: 'https://chat.example.test/widget.js?id=1' });
    const csp = String(headers['content-security-policy']);
    expect(csp).toContain("script-src 'self' https://chat.example.test;");
    expect(csp).toContain("connect-src 'self' ws: wss: https://chat.example.test;");
    expect(csp).toContain("frame-src 'self' https://chat.example.test;");
    expect(csp).not.toContain('/widget.js');
  });

  it('keeps scripts to the own origin when no chat widget is configured', async () => {
    const csp = String((await headersFor({}))['content-security-policy']);
    expect(csp).toContain("script-src 'self';");
    expect(csp).not.toContain('unsafe-eval');
  });

  it('lets Stripe.js load, frame and call Stripe only when Stripe takes payment with a publishable key', async () => {
    const stripe = { PAYMENT_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_1', STRIPE_WEBHOOK_SECRET: 'whsec_1' };
    const csp = String((await headersFor({ ...stripe, STRIPE_PUBLISHABLE_KEY: 'pk_test_1' }))['content-security-policy']);
    expect(csp).toContain("script-src 'self' https://js.stripe.com https://*.js.stripe.com;");
    expect(csp).toContain("frame-src 'self' https://js.stripe.com https://*.js.stripe.com https://hooks.stripe.com;");
    expect(csp).toContain("connect-src 'self' ws: wss: https://api.stripe.com;");
    for (const env of [{}, { PAYMENT_PROVIDER: 'invoice' }, stripe] as Array<Record<string, string>>) {
      const without = String((await headersFor(env))['content-security-policy']);
      expect(without).not.toContain('stripe.com');
      expect(without).toContain("script-src 'self';");
    }
  });

  it('marks API responses no-store unless the route chose its own caching, and leaves pages alone', async () => {
    expect((await headersFor({}))['cache-control']).toBe('no-store');
    expect((await headersFor({}, '/api/cached'))['cache-control']).toBe('private, max-age=60');
    expect((await headersFor({}, '/page'))['cache-control']).toBeUndefined();
  });
});
