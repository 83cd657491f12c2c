import fs from 'node:fs';
import path from 'node:path';
import { buildApp } from './app.ts';
import { startNotaryExpiryWarner } from './features/notaries/notary-expiry.service.ts';
import { parseConfig } from './config.ts';
import { createDatabase } from './db/client.ts';
import { startCheckingPdfs } from './features/documents/pdf-check-pool.ts';
import { startSealing } from './features/notarization/seal-pool.ts';
import { firstAdminLinkFileName, issueBootstrapInvite } from './features/invites/invites.service.ts';
import { seedDemoAccounts } from './features/system/demo.service.ts';
import { privateUmask, secureDataDir } from './lib/data-dir.ts';
import { loadSecretsKey } from './lib/secrets.ts';
import { localMailboxPath } from './providers/email/email.ts';
import { createPaymentProvider } from './providers/payment/payment-provider.ts';
import { createStorage } from './providers/storage/storage.ts';
import { createRealtime } from './providers/realtime/realtime.ts';
import { createWeriftSfu } from './providers/video/werift-sfu.ts';
import { startEmbeddedMaintenance } from './tasks/embedded-maintenance.ts';
import { startGnwMatcher } from './tasks/gnw-matcher.ts';
import { startIdentityPurger } from './tasks/identity-purger.ts';
import { startPaymentReconciler } from './tasks/payment-reconciler.ts';
import { startBookingReminders } from './tasks/booking-reminders.ts';
import { startArchiveTimestampRenewal } from './tasks/archive-timestamp-renewal.ts';

// Before anything opens a file: whatever this process creates is its own (files 0600, directories 0700).
process.umask(privateUmask);
const config = parseConfig(process.env);
const madePrivate = secureDataDir(config.dataDir);
if (madePrivate > 0) console.warn(`Made ${madePrivate} files and directories in ${config.dataDir} private to this account (0600 / 0700).`);
const database = await createDatabase({
  databaseUrl: config.databaseUrl,
  dataDir: config.databaseUrl ? null : `${config.dataDir}/db`,
  onIdleConnectionError: (error) => console.warn(`PostgreSQL ended an idle connection (${error.message}); the next query opens a new one.`),
});
await database.migrate();
const realtime = await createRealtime(config.redisUrl);
if (config.databaseUrl && !config.secretsKey) {
  console.warn('SECRETS_KEY is not set: this instance uses DATA_DIR/secrets.key. Every instance sharing DATABASE_URL needs the same key; set SECRETS_KEY.');
}
const secretsKey = loadSecretsKey(config.secretsKey, config.dataDir);
const storage = createStorage(config.storage);
// The media hub of this instance: the rooms of the live sessions it is home to (with Redis, sockets on
// other instances are relayed here; docs/DEPLOYMENT.md).
const video = createWeriftSfu({
  iceServers: config.video.iceServers,
  onError: (error) => app.log.warn({ err: error }, 'media hub work failed'),
});
// Who takes payment (decision 050): Stripe, the company's invoice, or nobody (then nothing is charged).
const payment = createPaymentProvider(config.payment);
const app = await buildApp({ db: database.db, dbKind: database.kind, config, realtime, secretsKey, storage, video, payment });
// ID photos and stated details are deleted when their state's retention ends (decision 025).
const stopIdentityPurger = startIdentityPurger({ db: database.db, storage, secretsKey, log: app.log });
// Notaries and administrators are warned 30 days before a commission, certificate, bond or E&O expires (decision 027).
const stopNotaryExpiryWarner = startNotaryExpiryWarner({ db: database.db, publicUrl: config.publicUrl, log: app.log });
// Payments a lost answer or webhook left held on a finished job are checked with the provider and settled (decision 050).
const stopPaymentReconciler = payment ? startPaymentReconciler({ db: database.db, payment, log: app.log }) : () => {};
// Booked Notarize Now sessions are reminded to both sides a day and 15 minutes before (decision 051).
const stopBookingReminders = startBookingReminders({ db: database.db, config, log: app.log });
// Archive timestamps of notarized documents are renewed before their TSA certificate expires (decision 058).
const stopArchiveTimestampRenewal = startArchiveTimestampRenewal(
  { db: database.db, storage, secretsKey, tsaUrl: config.tsaUrl, log: app.log },
  config.archiveRenewal,
);
// The embedded database has no autovacuum nor checkpointer: a task vacuums and checkpoints it (decision 038).
const embeddedMaintenance = startEmbeddedMaintenance(database, app.log, config.embeddedVacuumMs);
// Notarize Now's sweep: expires offers, ends searches and rings the next notary every second (decision 051).
const gnwMatcher = startGnwMatcher({ db: database.db, realtime, log: app.log });

const banner: string[] = [];
if (process.argv.includes('--demo')) {
  const demo = await seedDemoAccounts(database.db, secretsKey);
  banner.push('Demo accounts (password for all of them, shown once):', `  password: ${demo.password}`);
  for (const account of demo.accounts) banner.push(`  ${account.role.padEnd(12)} ${account.email}`);
  if (!config.email.smtpUrl) {
    banner.push(`  Mail (sign-in codes, reset links, invitations) waits at ${config.publicUrl}${localMailboxPath}: sign in as the admin to read it.`);
  }
  if (config.mfa.requiredRoles.length > 0) {
    banner.push(`  (${config.mfa.requiredRoles.join(', ')} accounts set up a second factor at their first sign-in: MFA_REQUIRED_ROLES)`);
  }
}
const bootstrap = await issueBootstrapInvite(database.db, config.publicUrl);
if (bootstrap) {
  // The link grants an administrator account: it goes to a file only this account can read, never
  // to the console or a log (docs/SECURITY.md).
  const linkFile = path.resolve(config.dataDir, firstAdminLinkFileName);
  fs.writeFileSync(linkFile, `${bootstrap.url}\n`, { mode: 0o600 });
  banner.push(
    'No administrator exists yet. The one-time link that creates the first one is in',
    `  ${linkFile}`,
    `(readable only by this account; valid until ${bootstrap.expiresAt.toISOString()}; a restart issues a new one).`,
    ...(config.email.smtpUrl ? [] : [`Without SMTP_URL, mail is kept in a local mailbox that administrators read at ${config.publicUrl}${localMailboxPath}.`]),
  );
}

if (!bootstrap) fs.rmSync(path.resolve(config.dataDir, firstAdminLinkFileName), { force: true });

let isClosing = false;
async function shutDown(signal: string) {
  if (isClosing) return;
  isClosing = true;
  app.log.info({ signal }, 'shutting down');
  stopIdentityPurger();
  stopNotaryExpiryWarner();
  stopPaymentReconciler();
  await gnwMatcher.stop();
  stopBookingReminders();
  stopArchiveTimestampRenewal();
  await embeddedMaintenance?.stop();
  await app.close();
  await video.close();
  await realtime.close();
  await database.close();
  process.exit(0);
}
process.on('SIGINT', () => void shutDown('SIGINT'));
process.on('SIGTERM', () => void shutDown('SIGTERM'));

await app.listen({ host: config.host, port: config.port });
// The first upload and the first seal do not wait for their thread to load (1-2 s each).
void startCheckingPdfs();
void startSealing();
const mail = config.email.smtpUrl ? 'mail via SMTP_URL' : `mail kept in the local mailbox at ${localMailboxPath}`;
const paymentText = payment ? `payment by ${payment.kind}` : 'payment not configured';
const databaseText = database.kind === 'pglite' ? `embedded PGlite in ${config.dataDir}/db` : 'PostgreSQL at DATABASE_URL';
console.log(
  [``, `Open RON is running at ${config.publicUrl} (${databaseText}, realtime ${realtime.kind}, ${mail}, ${paymentText}).`, ...banner, ``].join('\n'),
);
