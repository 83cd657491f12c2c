import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SessionUser } from '#shared/auth.ts';
import { createInProcessRealtime } from '#server/providers/realtime/realtime.ts';
import { SessionCache } from './session-cache.ts';

function user(id: string): SessionUser {
  return {
    id,
    name: 'N',
    fullName: 'N',
    email: `${id}@example.test`,
    roles: ['signer'],
    role: 'signer',
    status: 'active',
    pendingApproval: null,
    emailVerified: false,
  };
}

function session(userId: string, expiresInMs = 3600_000) {
  return { sessionId: `s-${userId}`, expiresAt: Date.now() + expiresInMs, isMfaPending: false, user: user(userId) };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('SessionCache', () => {
  it('returns a cached session until its lifetime is over', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const cache = new SessionCache(createInProcessRealtime(), 30_000);
    await cache.start();
    cache.set('h1', session('u1'));
    expect(cache.get('h1')).toMatchObject({ sessionId: 's-u1', user: { id: 'u1' } });
    vi.setSystemTime(Date.now() + 30_001);
    expect(cache.get('h1')).toBeNull();
    await cache.stop();
  });

  it('never returns a session past its own expiry, even inside the cache lifetime', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const cache = new SessionCache(createInProcessRealtime(), 30_000);
    cache.set('h1', session('u1', 1000));
    vi.setSystemTime(Date.now() + 1001);
    expect(cache.get('h1')).toBeNull();
  });

  it('caches nothing when its lifetime is zero', () => {
    const cache = new SessionCache(createInProcessRealtime(), 0);
    cache.set('h1', session('u1'));
    expect(cache.get('h1')).toBeNull();
  });

  it('drops a token on every instance sharing the realtime provider', async () => {
    const realtime = createInProcessRealtime();
    const first = new SessionCache(realtime, 30_000);
    const second = new SessionCache(realtime, 30_000);
    await Promise.all([first.start(), second.start()]);
    first.set('h1', session('u1'));
    second.set('h1', session('u1'));
    second.set('h2', session('u2'));
    await first.invalidateToken('h1');
    expect(first.get('h1')).toBeNull();
    expect(second.get('h1')).toBeNull();
    expect(second.get('h2')).not.toBeNull();
    await Promise.all([first.stop(), second.stop()]);
  });

  it('drops every session of a user on every instance', async () => {
    const realtime = createInProcessRealtime();
    const first = new SessionCache(realtime, 30_000);
    const second = new SessionCache(realtime, 30_000);
    await Promise.all([first.start(), second.start()]);
    second.set('a', session('u1'));
    second.set('b', session('u1'));
    second.set('c', session('u2'));
    await first.invalidateUser('u1');
    expect(second.get('a')).toBeNull();
    expect(second.get('b')).toBeNull();
    expect(second.get('c')).not.toBeNull();
    await Promise.all([first.stop(), second.stop()]);
  });

  it('ignores a malformed invalidation message and keeps working', async () => {
    const realtime = createInProcessRealtime();
    const cache = new SessionCache(realtime, 30_000);
    await cache.start();
    cache.set('h1', session('u1'));
    await realtime.publish('auth:invalidate', 'not json');
    expect(cache.get('h1')).not.toBeNull();
    await realtime.publish('auth:invalidate', JSON.stringify({ tokenHash: 'h1' }));
    expect(cache.get('h1')).toBeNull();
    await cache.stop();
  });

  it('stops listening and forgets everything once stopped', async () => {
    const realtime = createInProcessRealtime();
    const cache = new SessionCache(realtime, 30_000);
    await cache.start();
    cache.set('h1', session('u1'));
    await cache.stop();
    expect(cache.get('h1')).toBeNull();
  });
});
