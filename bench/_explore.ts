import { createDatabase } from '#server/db/client.ts';
import { seedJobs } from './jobs-seed.ts';
const t0 = performance.now();
const database = await createDatabase({ databaseUrl: process.env.DBURL ?? null, dataDir: process.env.DBURL ? null : '/tmp/explore-pglite' });
await database.migrate();
console.log('migrated', performance.now() - t0);
const r = await seedJobs(database.db, { totalJobs: 100000, visibleJobs: 1000, otherUsers: 500, email: 'agent@bench.open-ron.test', passwordHash: 'x' });
console.log(r, performance.now() - t0);
await database.close();
