import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { createDatabase, dumpMigratedPglite } from '#server/db/client.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteDumpPath: string;
    /** With TEST_DATABASE_URL: a migrated database each test app's database is copied from. */
    postgresTemplate: string | null;
  }
}

const withServer = async <T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> => {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
};

/** Migrates one PostgreSQL database to copy from: a copy takes a fraction of running the migrations. */
async function createPostgresTemplate(serverUrl: string): Promise<{ name: string; drop: () => Promise<void> }> {
  const name = `ron_test_template_${randomUUID().replace(/-/g, '')}`;
  await withServer(serverUrl, (client) => client.query(`create database ${name}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = await createDatabase({ databaseUrl: url.toString(), dataDir: null });
  try {
    await database.migrate();
  } finally {
    await database.close();
  }
  return { name, drop: () => withServer(serverUrl, (client) => client.query(`drop database if exists ${name} with (force)`)).then(() => undefined) };
}

/**
 * Migrates one in-memory PGlite and dumps it, so every test file starts from a copy in ~0.5 s; on
 * PostgreSQL (TEST_DATABASE_URL) likewise one migrated template database.
 */
export default async function setup(project: TestProject) {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-test-'));
  const dumpPath = path.join(directory, 'migrated.tar');
  const dump = await dumpMigratedPglite();
  fs.writeFileSync(dumpPath, Buffer.from(await dump.arrayBuffer()));
  project.provide('pgliteDumpPath', dumpPath);
  const serverUrl = process.env.TEST_DATABASE_URL;
  const template = serverUrl ? await createPostgresTemplate(serverUrl) : null;
  project.provide('postgresTemplate', template?.name ?? null);
  return async () => {
    fs.rmSync(directory, { recursive: true, force: true });
    await template?.drop();
  };
}
