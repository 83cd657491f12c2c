import type { SessionUser } from '#shared/auth.ts';
import type { RealtimeProvider } from '#server/providers/realtime/realtime.ts';

export interface CachedSession {
  sessionId: string;
  expiresAt: number;
  isMfaPending: boolean;
  user: SessionUser;
}

/** Broadcast when a session token or every session of a user ends: `{ tokenHash }` or `{ userId }`. */
export const invalidationChannel = 'auth:invalidate';
const maximumEntries = 20_000;

/**
 * Keeps recently resolved sessions in memory for a few seconds so `/api/auth/me` and every guarded
 * route skip the database. Revocations and user changes are broadcast through the realtime provider,
 * so every instance drops the entry at once; the short lifetime bounds anything missed.
 */
export class SessionCache {
  private readonly entries = new Map<string, CachedSession & { cachedUntil: number }>();
  private unsubscribe: (() => Promise<void>) | null = null;

  constructor(
    private readonly realtime: RealtimeProvider,
    private readonly lifetimeMs: number,
  ) {}

  async start(): Promise<void> {
    this.unsubscribe = await this.realtime.subscribe(invalidationChannel, (message) => {
      try {
        const parsed = JSON.parse(message) as { tokenHash?: string; userId?: string };
        if (parsed.tokenHash) this.entries.delete(parsed.tokenHash);
        if (parsed.userId) this.dropUserLocally(parsed.userId);
      } catch {
        // a malformed message is ignored: entries expire by themselves
      }
    });
  }

  async stop(): Promise<void> {
    await this.unsubscribe?.();
    this.entries.clear();
  }

  get(tokenHash: string): CachedSession | null {
    const entry = this.entries.get(tokenHash);
    if (!entry) return null;
    const now = Date.now();
    if (entry.cachedUntil <= now || entry.expiresAt <= now) {
      this.entries.delete(tokenHash);
      return null;
    }
    return entry;
  }

  set(tokenHash: string, session: CachedSession): void {
    if (this.lifetimeMs <= 0) return;
    if (this.entries.size >= maximumEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(tokenHash, { ...session, cachedUntil: Date.now() + this.lifetimeMs });
  }

  async invalidateToken(tokenHash: string): Promise<void> {
    this.entries.delete(tokenHash);
    await this.realtime.publish(invalidationChannel, JSON.stringify({ tokenHash }));
  }

  async invalidateUser(userId: string): Promise<void> {
    this.dropUserLocally(userId);
    await this.realtime.publish(invalidationChannel, JSON.stringify({ userId }));
  }

  private dropUserLocally(userId: string): void {
    for (const [key, entry] of this.entries) if (entry.user.id === userId) this.entries.delete(key);
  }
}
