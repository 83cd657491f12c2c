import fs from 'node:fs';
import { and, eq, lt, sql } from 'drizzle-orm';
import type { Db } from '#server/db/client.ts';
import { notaryArchives } from '#server/db/schema/index.ts';
import {
  ArchiveAbandoned,
  ArchiveBuildError,
  ArchiveInterrupted,
  archiveLeaseMs,
  buildNotaryArchive,
  type ArchiveBuildDeps,
} from '#server/features/journal/archive-build.ts';
import { archiveFilePath, type ArchiveRow } from '#server/features/journal/archive.service.ts';

/** A finished archive is kept this long, then its file is deleted (the row stays, as expired). */
export const archiveKeptMs = 7 * 24 * 3600_000;

/**
 * Builds the notaries' archives in the background (decision 059). A queued archive is claimed with
 * FOR UPDATE SKIP LOCKED in one statement that also sets its lease (expiresAt while building), so
 * two instances never take the same one; progress updates renew the lease. One archive at a time
 * per process: the work is disk and hashing, and a second would only halve each one's speed. Each
 * pass also expires finished archives past their time (deleting their files) and fails builds whose
 * lease ran out (their process stopped).
 */
export class ArchiveBuilder {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private isStopped = false;
  private isWanted = false;

  constructor(
    private readonly deps: ArchiveBuildDeps & { db: Db },
    private readonly log: { error(object: unknown, message: string): void },
    private readonly options: { pollMs: number },
  ) {}

  start(): void {
    this.isStopped = false;
    const tick = async () => {
      if (this.isStopped) return;
      try {
        await this.runOnce();
      } catch (error) {
        this.log.error({ err: error }, 'archive builder pass failed');
      }
      if (!this.isStopped) {
        this.timer = setTimeout(() => void tick(), this.options.pollMs);
        this.timer.unref();
      }
    };
    this.timer = setTimeout(() => void tick(), this.options.pollMs);
    this.timer.unref();
  }

  /** Stops polling; a build in flight stops between two files and its archive is queued again. */
  async stop(): Promise<void> {
    this.isStopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** A request was queued: build it now rather than at the next poll (a pass in flight picks it up). */
  wake(): void {
    if (this.isStopped) return;
    if (this.running) {
      this.isWanted = true;
      return;
    }
    void this.runOnce().catch((error: unknown) => this.log.error({ err: error }, 'archive builder pass failed'));
  }

  /** One pass: expire and fail what is due, then build queued archives until none is left. Returns how many were built. */
  runOnce(): Promise<number> {
    this.running ??= this.pass().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async pass(): Promise<number> {
    await this.cleanUp(new Date());
    let built = 0;
    do {
      this.isWanted = false;
      for (;;) {
        if (this.isStopped) return built;
        const claimed = await this.claim();
        if (!claimed) break;
        if (await this.build(claimed)) built += 1;
      }
    } while (this.isWanted && !this.isStopped);
    return built;
  }

  private async claim(): Promise<ArchiveRow | null> {
    const [row] = await this.deps.db
      .update(notaryArchives)
      .set({ status: 'building', startedAt: sql`now()`, expiresAt: sql`now() + make_interval(secs => ${archiveLeaseMs / 1000})` })
      .where(sql`${notaryArchives.id} = (select id from notary_archives where status = 'queued' order by created_at limit 1 for update skip locked)`)
      .returning();
    return row ?? null;
  }

  private async build(archive: ArchiveRow): Promise<boolean> {
    const isHeld = and(eq(notaryArchives.id, archive.id), eq(notaryArchives.status, 'building'));
    try {
      const outcome = await buildNotaryArchive(this.deps, archive, { isStopping: () => this.isStopped });
      const finishedAt = new Date();
      const [done] = await this.deps.db
        .update(notaryArchives)
        .set({
          status: 'ready',
          fileKey: `archives/${archive.id}.zip`,
          sizeBytes: outcome.sizeBytes,
          sha256: outcome.sha256,
          finishedAt,
          expiresAt: new Date(finishedAt.getTime() + archiveKeptMs),
          failureReason: null,
        })
        .where(isHeld)
        .returning({ id: notaryArchives.id });
      if (!done) await fs.promises.rm(archiveFilePath(this.deps.config.dataDir, archive.id), { force: true });
      return Boolean(done);
    } catch (error) {
      if (error instanceof ArchiveAbandoned) return false;
      if (error instanceof ArchiveInterrupted) {
        // Built again from the start by whichever instance runs next.
        await this.deps.db.update(notaryArchives).set({ status: 'queued', startedAt: null, expiresAt: null, filesDone: 0, bytesDone: 0 }).where(isHeld);
        return false;
      }
      const reason =
        error instanceof ArchiveBuildError
          ? `${error.message} Ask for the archive again; if it fails again, an administrator can look into it.`
          : (error as NodeJS.ErrnoException).code === 'ENOSPC'
            ? 'The server ran out of disk space while writing the archive. An administrator needs to free space; then ask for it again.'
            : 'The archive could not be built because of an error on the server. Ask for it again; if it fails again, an administrator can look into it.';
      if (!(error instanceof ArchiveBuildError)) this.log.error({ err: error, archiveId: archive.id }, 'archive build failed');
      await this.deps.db.update(notaryArchives).set({ status: 'failed', failureReason: reason, finishedAt: new Date(), expiresAt: null }).where(isHeld);
      return false;
    }
  }

  /** Expires finished archives past their time (their files go) and fails builds whose lease ran out. */
  async cleanUp(now: Date): Promise<number> {
    const { db } = this.deps;
    const expired = await db
      .update(notaryArchives)
      .set({ status: 'expired', fileKey: null })
      .where(and(eq(notaryArchives.status, 'ready'), lt(notaryArchives.expiresAt, now)))
      .returning({ id: notaryArchives.id });
    const lapsed = await db
      .update(notaryArchives)
      .set({
        status: 'failed',
        failureReason: 'The server stopped while it built this archive. Ask for it again.',
        finishedAt: now,
        expiresAt: null,
      })
      .where(and(eq(notaryArchives.status, 'building'), lt(notaryArchives.expiresAt, now)))
      .returning({ id: notaryArchives.id });
    for (const { id } of [...expired, ...lapsed]) {
      const filePath = archiveFilePath(this.deps.config.dataDir, id);
      await fs.promises.rm(filePath, { force: true });
      await fs.promises.rm(`${filePath}.part`, { force: true });
    }
    return expired.length + lapsed.length;
  }
}
