import { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';

export type RealtimeHandler = (message: string) => void;

/**
 * Keys each held by one holder for a while, shared by every instance (Redis): who is the home of
 * something that lives in one process. A holder that stops refreshing loses its key at the expiry.
 */
export interface LeaseStore {
  /**
   * Takes the key for `holder` if nobody holds it (SET NX with an expiry) or renews it if `holder`
   * already does; returns who holds it now (`holder`, or the other one).
   */
  hold(key: string, holder: string, ttlMs: number): Promise<string>;
  /** Who holds the key now, or null. */
  read(key: string): Promise<string | null>;
  /** Gives the key up if `holder` still holds it. */
  release(key: string, holder: string): Promise<void>;
}

/** Fan-out between app instances: in-process by default, Redis pub/sub when REDIS_URL is set. */
export interface RealtimeProvider {
  readonly kind: 'in-process' | 'redis';
  /** Shared keys with an expiry when there can be several instances (Redis); null in-process (one instance). */
  readonly leases: LeaseStore | null;
  publish(channel: string, message: string): Promise<void>;
  subscribe(channel: string, handler: RealtimeHandler): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export function createInProcessRealtime(): RealtimeProvider {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  return {
    kind: 'in-process',
    leases: null,
    async publish(channel, message) {
      emitter.emit(channel, message);
    },
    async subscribe(channel, handler) {
      emitter.on(channel, handler);
      return async () => {
        emitter.off(channel, handler);
      };
    },
    async close() {
      emitter.removeAllListeners();
    },
  };
}

/** SET NX PX, or PEXPIRE when the caller already holds the key, in one step; returns the holder. */
const holdScript = `
local current = redis.call('GET', KEYS[1])
if current == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return ARGV[1]
end
if current then return current end
redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])
return ARGV[1]
`;
const releaseScript = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

export async function createRedisRealtime(url: string): Promise<RealtimeProvider> {
  const publisher = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 3 });
  const subscriber = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 3 });
  await Promise.all([publisher.connect(), subscriber.connect()]);
  const handlers = new Map<string, Set<RealtimeHandler>>();
  subscriber.on('message', (channel: string, message: string) => {
    for (const handler of handlers.get(channel) ?? []) handler(message);
  });
  return {
    kind: 'redis',
    leases: {
      async hold(key, holder, ttlMs) {
        return String(await publisher.eval(holdScript, 1, key, holder, String(ttlMs)));
      },
      read: (key) => publisher.get(key),
      async release(key, holder) {
        await publisher.eval(releaseScript, 1, key, holder);
      },
    },
    async publish(channel, message) {
      await publisher.publish(channel, message);
    },
    async subscribe(channel, handler) {
      // The handler joins its set before the SUBSCRIBE is awaited: an unsubscribe of the channel's
      // last other handler meanwhile must see it, or it would drop the channel and leave this
      // handler in a set nobody reads (a live channel that silently hears nothing).
      let set = handlers.get(channel);
      const isNewChannel = !set;
      if (!set) {
        set = new Set();
        handlers.set(channel, set);
      }
      set.add(handler);
      if (isNewChannel) await subscriber.subscribe(channel);
      return async () => {
        const current = handlers.get(channel);
        current?.delete(handler);
        if (current && current.size === 0) {
          handlers.delete(channel);
          await subscriber.unsubscribe(channel);
        }
      };
    },
    async close() {
      handlers.clear();
      await Promise.allSettled([publisher.quit(), subscriber.quit()]);
    },
  };
}

export function createRealtime(redisUrl: string | null): Promise<RealtimeProvider> {
  return redisUrl ? createRedisRealtime(redisUrl) : Promise.resolve(createInProcessRealtime());
}
