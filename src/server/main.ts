import { buildApp } from './app.ts';
import { parseConfig } from './config.ts';
import { createDatabase } from './db/client.ts';
import { issueBootstrapInvite } from './features/invites/invites.service.ts';
import { seedDemoAccounts } from './features/system/demo.service.ts';
import { loadSecretsKey } from './lib/secrets.ts';
import { createStorage } from './providers/storage/storage.ts';
import { createRealtime } from './providers/realtime/realtime.ts';

const config = parseConfig(process.env);
const database = await createDatabase({ databaseUrl: config.databaseUrl, dataDir: config.databaseUrl ? null : `${config.dataDir}/db` });
await database.migrate();
const realtime = await createRealtime(config.redisUrl);
if (config.databaseUrl && !config.secretsKey) {
  console.warn('SECRETS_KEY is not set: this instance uses DATA_DIR/secrets.key. Every instance sharing DATABASE_URL needs the same key; set SECRETS_KEY.');
}
const secretsKey = loadSecretsKey(config.secretsKey, config.dataDir);
const storage = createStorage(config.storage);
const app = await buildApp({ db: database.db, dbKind: database.kind, config, realtime, secretsKey, storage });

const banner: string[] = [];
if (process.argv.includes('--demo')) {
  const demo = await seedDemoAccounts(database.db);
  banner.push('Demo accounts (password for all of them, shown once):', `  password: ${demo.password}`);
  for (const account of demo.accounts) banner.push(`  ${account.role.padEnd(12)} ${account.email}`);
  if (config.mfa.requiredRoles.length > 0) {
    banner.push(`  (${config.mfa.requiredRoles.join(', ')} accounts set up a second factor at their first sign-in: MFA_REQUIRED_ROLES)`);
  }
}
const bootstrap = await issueBootstrapInvite(database.db, config.publicUrl);
if (bootstrap) {
  banner.push(
    'No administrator exists yet. Create the first one with this one-time link',
    `(valid until ${bootstrap.expiresAt.toISOString()}; a restart issues a new one):`,
    `  ${bootstrap.url}`,
  );
}

let isClosing = false;
async function shutDown(signal: string) {
  if (isClosing) return;
  isClosing = true;
  app.log.info({ signal }, 'shutting down');
  await app.close();
  await realtime.close();
  await database.close();
  process.exit(0);
}
process.on('SIGINT', () => void shutDown('SIGINT'));
process.on('SIGTERM', () => void shutDown('SIGTERM'));

await app.listen({ host: config.host, port: config.port });
const mail = config.email.smtpUrl ? 'mail via SMTP_URL' : 'mail to the log';
const databaseText = database.kind === 'pglite' ? `embedded PGlite in ${config.dataDir}/db` : 'PostgreSQL at DATABASE_URL';
console.log([``, `Open RON is running at ${config.publicUrl} (${databaseText}, realtime ${realtime.kind}, ${mail}).`, ...banner, ``].join('\n'));
