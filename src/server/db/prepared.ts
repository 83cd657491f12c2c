import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Db, DbOrTx } from './client.ts';

/** A statement written once in SQL, sent by name: PostgreSQL parses and plans it once per connection. */
export interface PreparedStatement {
  name: string;
  text: string;
}

/** Names a statement by its text, so two texts never share a name on a connection. */
export function prepareStatement(label: string, text: string): PreparedStatement {
  return { name: `${label}_${createHash('sha256').update(text).digest('hex').slice(0, 12)}`, text };
}

interface RowsClient {
  query<T>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
}

/**
 * Runs a hand-written statement on the database's own client, for the few hot reads where building
 * the statement each time costs more than the read (the jobs list, decision 031). PostgreSQL gets it as a
 * named prepared statement; PGlite (one connection, in process) through its arrival-order gate.
 * Only the root database: a transaction's statements go through drizzle.
 */
export async function queryPrepared<T>(db: Db, statement: PreparedStatement, values: unknown[]): Promise<T[]> {
  const client = (db as unknown as { $client?: unknown }).$client;
  if (client instanceof pg.Pool) return (await client.query<T & pg.QueryResultRow>({ name: statement.name, text: statement.text, values })).rows;
  if (client && typeof (client as RowsClient).query === 'function') return (await (client as RowsClient).query<T>(statement.text, values)).rows;
  throw new Error('queryPrepared needs the root database client, not a transaction.');
}

/** Whether this is the root database (whose client queryPrepared can use), not a transaction. */
export function isRootDb(db: DbOrTx): db is Db {
  return (db as unknown as { $client?: unknown }).$client !== undefined;
}
