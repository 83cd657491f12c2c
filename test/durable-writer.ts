import { sql } from 'drizzle-orm';
import { createDatabase } from '#server/db/client.ts';
import { recordMark } from './fs-recorder.ts';

/**
 * Child process of durability.test.ts: opens the embedded database in the folder it is given through
 * the app's own client and inserts rows 1, 2, 3 … one statement each, printing `ack <id>` once the
 * insert has resolved (the moment the app would answer a request). Every 25 rows it also runs a
 * CHECKPOINT, so data files, not only the WAL, are written while it runs. It never stops by itself:
 * the test kills it.
 */
const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: durable-writer.ts <data folder>');
const database = await createDatabase({ databaseUrl: null, dataDir });
process.stdout.write('open\n');
for (let id = 1; ; id += 1) {
  await database.db.execute(sql`insert into durability_probe (id, body) values (${id}, ${`row ${id} `.repeat(20)})`);
  recordMark(`ack ${id}`);
  process.stdout.write(`ack ${id}\n`);
  if (id % 25 === 0) await database.db.execute(sql`checkpoint`);
}
