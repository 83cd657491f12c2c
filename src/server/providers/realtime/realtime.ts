import { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';

export type RealtimeHandler = (message: string) => void;

/** Fan-out between app instances: in-process by default, Redis pub/sub when REDIS_URL is set. */
export interface RealtimeProvider {
  readonly kind: 'in-process' | 'redis';
  publish(channel: string, message: string): Promise<void>;
  subscribe(channel: string, handler: RealtimeHandler): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export function createInProcessRealtime(): RealtimeProvider {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  return {
    kind: 'in-process',
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
