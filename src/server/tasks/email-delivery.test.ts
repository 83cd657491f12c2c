import net from 'node:net';
import { randomUUID } from 'node:crypto';
import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailOutbox, localMailbox } from '#server/db/schema/index.ts';
import { queueEmail } from '#server/lib/outbox.ts';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';
import { startSmtpCatcher, type SmtpCatcher } from '#test/smtp-catcher.ts';
import { getRetryDelaySeconds, removedAfterDelivery } from './email-delivery.ts';

/**
 * Two instances of one deployment (one database) mailing a real SMTP server. Their pollers wait a
 * minute, so messages go out only when a test runs a pass.
 */
let instanceA: TestApp;
let instanceB: TestApp;
let smtp: SmtpCatcher;
/** Points at a port nobody listens on; gives up after three attempts. */
let unreachable: TestApp;
/** No SMTP_URL: mail goes to the local mailbox; this test reads the log too. */
let logOnly: TestApp;
const logLines: Array<Record<string, unknown>> = [];

async function findClosedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  const closedPort = await findClosedPort();
  [instanceA, unreachable, logOnly] = await Promise.all([
    createTestApp({ SMTP_URL: smtp.url, EMAIL_POLL_MS: '60000' }),
    createTestApp({ SMTP_URL: `smtp://127.0.0.1:${closedPort}`, EMAIL_POLL_MS: '60000', EMAIL_MAX_ATTEMPTS: '3' }),
    createTestApp(
      { EMAIL_POLL_MS: '60000', LOG_LEVEL: 'info' },
      { logStream: { write: (line) => void logLines.push(JSON.parse(line) as Record<string, unknown>) } },
    ),
  ]);
  instanceB = await createTestApp({ SMTP_URL: smtp.url, EMAIL_POLL_MS: '60000' }, { databaseOf: instanceA });
});
afterAll(async () => {
  await instanceB?.close();
  await Promise.all([instanceA?.close(), unreachable?.close(), logOnly?.close()]);
  await smtp?.close();
});

const newAddress = () => `mail-${randomUUID().slice(0, 8)}@example.test`;

async function queue(t: TestApp, to: string, subject = 'Hello from the outbox') {
  await queueEmail(t.db, { to, subject, text: `A message for ${to}.\nhttps://example.test/link`, kind: 'test' });
  const [row] = await t.db.select().from(emailOutbox).where(eq(emailOutbox.toAddress, to));
  if (!row) throw new Error('queued row not found');
  return row;
}

async function getRow(t: TestApp, id: string) {
  const [row] = await t.db.select().from(emailOutbox).where(eq(emailOutbox.id, id));
  if (!row) throw new Error('outbox row vanished');
  return row;
}

/** Makes a message due now, as if its backoff had passed. */
async function makeDue(t: TestApp, id: string) {
  await t.db
    .update(emailOutbox)
    .set({ nextAttemptAt: new Date(Date.now() - 1000) })
    .where(eq(emailOutbox.id, id));
}

describe('email delivery over SMTP', () => {
  it('delivers a queued message once, with a Message-ID made from its outbox id, and marks it sent', async () => {
    const to = newAddress();
    const row = await queue(instanceA, to, 'Welcome aboard');
    expect(row).toMatchObject({ status: 'pending', attempts: 0, sentAt: null });

    expect(await instanceA.app.emailDelivery.runOnce()).toBe(1);
    const mail = await smtp.waitForMail((m) => m.to === to);
    expect(mail).toMatchObject({ subject: 'Welcome aboard', messageId: `<${row.id}@localhost>` });
    expect(mail.text).toContain(`A message for ${to}.`);
    expect(await getRow(instanceA, row.id)).toMatchObject({ status: 'sent', attempts: 1, lastError: null, lockedUntil: null, sentAt: expect.any(Date) });

    expect(await instanceA.app.emailDelivery.runOnce()).toBe(0);
    expect(smtp.messages.filter((m) => m.to === to)).toHaveLength(1);
  });

  it('keeps no link or code in the outbox once a message that carried one is delivered', async () => {
    const to = newAddress();
    await queueEmail(instanceA.db, {
      to,
      subject: 'Reset your password',
      text: 'Open https://example.test/login?resetToken=secret-token-value',
      kind: 'password_reset',
    });
    await instanceA.app.emailDelivery.runOnce();
    const mail = await smtp.waitForMail((m) => m.to === to);
    expect(mail.text).toContain('secret-token-value');
    const [row] = await instanceA.db.select().from(emailOutbox).where(eq(emailOutbox.toAddress, to));
    expect(row).toMatchObject({ status: 'sent', textBody: removedAfterDelivery, subject: removedAfterDelivery });
  });

  it('queues nothing when the transaction that wrote the message rolls back', async () => {
    const to = newAddress();
    await expect(
      instanceA.db.transaction(async (tx) => {
        await queueEmail(tx, { to, subject: 'Never sent', text: 'rolled back', kind: 'test' });
        throw new Error('the action failed');
      }),
    ).rejects.toThrow('the action failed');
    expect(await instanceA.db.select().from(emailOutbox).where(eq(emailOutbox.toAddress, to))).toEqual([]);
  });

  it('retries a message the SMTP server refused, after a backoff, and then delivers it exactly once', async () => {
    const to = newAddress();
    const row = await queue(instanceA, to, 'Second time lucky');
    smtp.rejectNext(1);
    const before = Date.now();

    expect(await instanceA.app.emailDelivery.runOnce()).toBe(0);
    const failed = await getRow(instanceA, row.id);
    expect(failed).toMatchObject({ status: 'pending', attempts: 1, sentAt: null, lockedUntil: null });
    expect(failed.lastError).toMatch(/451/);
    expect(failed.nextAttemptAt.getTime()).toBeGreaterThanOrEqual(before + (getRetryDelaySeconds(1) - 1) * 1000);
    expect(smtp.rejectedCount).toBeGreaterThanOrEqual(1);

    // Not due yet: a pass leaves it alone.
    expect(await instanceA.app.emailDelivery.runOnce()).toBe(0);
    expect((await getRow(instanceA, row.id)).attempts).toBe(1);

    await makeDue(instanceA, row.id);
    expect(await instanceA.app.emailDelivery.runOnce()).toBe(1);
    await smtp.waitForMail((m) => m.to === to);
    expect(await getRow(instanceA, row.id)).toMatchObject({ status: 'sent', attempts: 2, lastError: null });
    expect(smtp.messages.filter((m) => m.to === to)).toHaveLength(1);
  });

  it('delivers a message whose sending lease expired (an instance crashed mid-send), but not one still leased', async () => {
    const leased = await queue(instanceA, newAddress(), 'Still leased');
    const abandoned = await queue(instanceA, newAddress(), 'Abandoned');
    await instanceA.db
      .update(emailOutbox)
      .set({ status: 'sending', attempts: 1, lockedUntil: sql`now() + interval '2 minutes'` })
      .where(eq(emailOutbox.id, leased.id));
    await instanceA.db
      .update(emailOutbox)
      .set({ status: 'sending', attempts: 1, lockedUntil: sql`now() - interval '1 second'` })
      .where(eq(emailOutbox.id, abandoned.id));

    expect(await instanceA.app.emailDelivery.runOnce()).toBe(1);
    await smtp.waitForMail((m) => m.to === abandoned.toAddress);
    expect(await getRow(instanceA, abandoned.id)).toMatchObject({ status: 'sent', attempts: 2 });
    expect(await getRow(instanceA, leased.id)).toMatchObject({ status: 'sending', attempts: 1 });
    expect(smtp.messages.some((m) => m.to === leased.toAddress)).toBe(false);
    // Out of the way of later tests, however long this file runs.
    await instanceA.db.update(emailOutbox).set({ status: 'failed' }).where(eq(emailOutbox.id, leased.id));
  });
});

describe('email delivery when the SMTP server cannot be reached', () => {
  it('records the error, counts the attempt and pushes the next attempt later, doubling the wait', async () => {
    const row = await queue(unreachable, newAddress());
    const before = Date.now();
    expect(await unreachable.app.emailDelivery.runOnce()).toBe(0);
    const first = await getRow(unreachable, row.id);
    expect(first).toMatchObject({ status: 'pending', attempts: 1, sentAt: null });
    expect(first.lastError).toMatch(/ECONNREFUSED|connect/i);
    expect(first.nextAttemptAt.getTime()).toBeGreaterThanOrEqual(before + 4000);
    expect(first.nextAttemptAt.getTime()).toBeLessThanOrEqual(Date.now() + 6000);

    await makeDue(unreachable, row.id);
    const beforeSecond = Date.now();
    await unreachable.app.emailDelivery.runOnce();
    const second = await getRow(unreachable, row.id);
    expect(second).toMatchObject({ status: 'pending', attempts: 2 });
    expect(second.nextAttemptAt.getTime()).toBeGreaterThanOrEqual(beforeSecond + 9000);
    expect(second.nextAttemptAt.getTime()).toBeLessThanOrEqual(Date.now() + 11_000);
  });

  it('marks a message failed after EMAIL_MAX_ATTEMPTS and never tries it again', async () => {
    const row = await queue(unreachable, newAddress());
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      await makeDue(unreachable, row.id);
      await unreachable.app.emailDelivery.runOnce();
      expect((await getRow(unreachable, row.id)).attempts).toBe(attempt);
    }
    const failed = await getRow(unreachable, row.id);
    expect(failed).toMatchObject({ status: 'failed', attempts: 3, sentAt: null });
    expect(failed.lastError).toEqual(expect.any(String));

    await makeDue(unreachable, row.id);
    expect(await unreachable.app.emailDelivery.runOnce()).toBe(0);
    expect(await getRow(unreachable, row.id)).toMatchObject({ status: 'failed', attempts: 3 });
  });

  it('waits 5 s after the first failure, doubling up to one hour', () => {
    expect([1, 2, 3, 4].map(getRetryDelaySeconds)).toEqual([5, 10, 20, 40]);
    expect(getRetryDelaySeconds(20)).toBe(3600);
  });
});

describe('email delivery by two instances sharing one database', () => {
  it('sends every message exactly once when both deliver at the same time', async () => {
    const addresses = Array.from({ length: 24 }, newAddress);
    await instanceA.db.insert(emailOutbox).values(addresses.map((to) => ({ toAddress: to, subject: `For ${to}`, textBody: 'concurrent', kind: 'test' })));
    const rows = await instanceA.db.select({ id: emailOutbox.id }).from(emailOutbox).where(inArray(emailOutbox.toAddress, addresses));

    let total = 0;
    for (let round = 0; round < 10 && total < addresses.length; round += 1) {
      const passes = await Promise.all([instanceA.app.emailDelivery.runOnce(), instanceB.app.emailDelivery.runOnce()]);
      expect(passes.every((count) => count <= 10)).toBe(true);
      total += passes[0] + passes[1];
    }
    expect(total).toBe(addresses.length);
    // More passes of both instances find nothing left to send.
    expect(await Promise.all([instanceA.app.emailDelivery.runOnce(), instanceB.app.emailDelivery.runOnce()])).toEqual([0, 0]);
    await Promise.all(addresses.map((to) => smtp.waitForMail((m) => m.to === to)));

    const received = smtp.messages.filter((m) => addresses.includes(m.to));
    expect(received).toHaveLength(addresses.length);
    expect(new Set(received.map((m) => m.messageId)).size).toBe(addresses.length);
    expect(new Set(received.map((m) => m.messageId))).toEqual(new Set(rows.map((row) => `<${row.id}@localhost>`)));
    const states = await instanceB.db
      .select({ status: emailOutbox.status, attempts: emailOutbox.attempts })
      .from(emailOutbox)
      .where(inArray(emailOutbox.toAddress, addresses));
    expect(states.every((state) => state.status === 'sent' && state.attempts === 1)).toBe(true);
  });
});

describe('email delivery when a relay is slower than the sending lease', () => {
  it('does not send a message of its batch that another instance took over after the lease ran out', async () => {
    const first = await queue(instanceA, newAddress(), 'First of the batch');
    await instanceA.db
      .update(emailOutbox)
      .set({ createdAt: sql`now() - interval '1 second'` })
      .where(eq(emailOutbox.id, first.id));
    const second = await queue(instanceA, newAddress(), 'Second of the batch');
    const { held, release } = smtp.holdNext();

    const passA = instanceA.app.emailDelivery.runOnce();
    await held;
    // Instance A is stuck on the first message; meanwhile the lease on the second runs out.
    await instanceA.db
      .update(emailOutbox)
      .set({ lockedUntil: sql`now() - interval '1 second'` })
      .where(eq(emailOutbox.id, second.id));
    expect(await instanceB.app.emailDelivery.runOnce()).toBe(1);
    await smtp.waitForMail((m) => m.to === second.toAddress);

    release();
    await passA;
    await smtp.waitForMail((m) => m.to === first.toAddress);
    expect(smtp.messages.filter((m) => m.to === second.toAddress)).toHaveLength(1);
    expect(smtp.messages.filter((m) => m.to === first.toAddress)).toHaveLength(1);
    expect(await getRow(instanceA, first.id)).toMatchObject({ status: 'sent', attempts: 1 });
    expect(await getRow(instanceA, second.id)).toMatchObject({ status: 'sent', attempts: 2 });
  });
});

describe('email delivery without SMTP_URL', () => {
  it('delivers the message to the local mailbox, body included, and logs only that it is waiting there', async () => {
    const to = newAddress();
    const row = await queue(logOnly, to, 'Kept, not mailed');
    expect(await logOnly.app.emailDelivery.runOnce()).toBe(1);
    const [kept] = await logOnly.db.select().from(localMailbox).where(eq(localMailbox.id, row.id));
    expect(kept).toMatchObject({ toAddress: to, subject: 'Kept, not mailed', textBody: expect.stringContaining('https://example.test/link') });
    const lines = logLines.filter((entry) => entry.emailId === row.id);
    expect(lines).toEqual([expect.objectContaining({ event: 'email.mailbox', msg: `Mail for ${to} is waiting in the local mailbox at /admin/mail` })]);
    expect(JSON.stringify(logLines)).not.toContain('https://example.test/link');
    expect(await getRow(logOnly, row.id)).toMatchObject({ status: 'sent', attempts: 1 });
  });
});
