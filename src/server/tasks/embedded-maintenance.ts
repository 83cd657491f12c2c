import { sql } from 'drizzle-orm';
import type { Database } from '#server/db/client.ts';

interface Log {
  info(object: unknown, message: string): void;
  error(object: unknown, message: string): void;
}

export interface EmbeddedMaintenance {
  /** One pass now (a pass already under way is shared); resolves with how long it took, in ms. */
  runOnce(): Promise<number>;
  /** No pass starts after this; resolves once a pass under way has ended. */
  stop(): Promise<void>;
}

/**
 * PostgreSQL inside PGlite runs as a single backend: there is no autovacuum and no checkpointer. Every
 * `everyMs` this VACUUMs and ANALYZEs each table, one statement per table so requests waiting at the
 * gate are served between two tables rather than after all of them, then CHECKPOINTs: without it the
 * WAL grows to max_wal_size (1 GB) and a restart after a crash or power cut replays all of it.
 * The PostgreSQL server has autovacuum and its checkpointer: there this starts nothing (null).
 */
export function startEmbeddedMaintenance(database: Pick<Database, 'db' | 'kind'>, log: Log, everyMs: number): EmbeddedMaintenance | null {
  if (database.kind !== 'pglite' || everyMs <= 0) return null;
  const { db } = database;
  let running: Promise<number> | null = null;
  let isStopped = false;

  const pass = async (): Promise<number> => {
    const started = performance.now();
    const result = (await db.execute(
      sql`select quote_ident(schemaname) || '.' || quote_ident(relname) as name from pg_stat_user_tables order by relname`,
    )) as unknown as {
      rows: { name: string }[];
    };
    for (const { name } of result.rows) {
      if (isStopped) break;
      await db.execute(sql.raw(`vacuum (analyze) ${name}`));
    }
    if (!isStopped) await db.execute(sql`checkpoint`);
    const tookMs = Math.round(performance.now() - started);
    log.info({ tables: result.rows.length, tookMs }, 'embedded database vacuumed and checkpointed');
    return tookMs;
  };
  const runOnce = () =>
    (running ??= pass().finally(() => {
      running = null;
    }));
  const timer = setInterval(() => {
    if (running) return;
    runOnce().catch((error: unknown) => log.error({ err: error }, 'embedded database maintenance failed'));
  }, everyMs);
  timer.unref();

  return {
    runOnce,
    async stop() {
      isStopped = true;
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
