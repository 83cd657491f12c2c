import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { users } from '#server/db/schema/index.ts';
import { announceToUsers } from '#server/features/jobs/access-change.ts';
import { invalidationChannel } from '#server/lib/session-cache.ts';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';

let t: TestApp;
let baseUrl: string;

beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  baseUrl = `ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => t?.close());

interface Listener {
  socket: WebSocket;
  events: Array<{ type: string }>;
  closed: Promise<number>;
  /** Resolves with the first event of this type (already received or still to come). */
  next(type: string): Promise<void>;
}

function listen(headers: Record<string, string>): Listener {
  const socket = new WebSocket(`${baseUrl}/api/notifications/live`, { headers });
  const events: Array<{ type: string }> = [];
  const waiters: Array<{ type: string; resolve: () => void }> = [];
  socket.on('message', (data: Buffer) => {
    const event = JSON.parse(data.toString()) as { type: string };
    events.push(event);
    for (const waiter of waiters.filter((candidate) => candidate.type === event.type)) waiter.resolve();
  });
  const closed = new Promise<number>((resolve) => socket.on('close', (code: number) => resolve(code)));
  const next = (type: string) =>
    events.some((event) => event.type === type) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ type, resolve }));
  return { socket, events, closed, next };
}

describe('a person’s own live channel', () => {
  it('refuses a socket without a sign-in before it opens', async () => {
    const socket = new WebSocket(`${baseUrl}/api/notifications/live`);
    const status = await new Promise<number>((resolve) => socket.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0)));
    expect(status).toBe(401);
  });

  it('tells only that person’s tabs that their access changed', async () => {
    const agent = await t.createUser({ roles: ['title_agent'], name: 'Agnes Agent' });
    const other = await t.createUser({ roles: ['title_agent'], name: 'Otto Other' });
    const agentTab = listen(await t.signInAs(agent));
    const otherTab = listen(await t.signInAs(other));
    await Promise.all([agentTab.next('ready'), otherTab.next('ready')]);
    await announceToUsers(t, [agent.id], { type: 'access-changed' });
    await agentTab.next('access-changed');
    // The other tab hears its own announcement, and nothing before it.
    await announceToUsers(t, [other.id], { type: 'access-changed' });
    await otherTab.next('access-changed');
    expect(otherTab.events).toEqual([{ type: 'ready' }, { type: 'access-changed' }]);
    agentTab.socket.close();
    otherTab.socket.close();
  });

  it('tells a tab its sign-in ended when the account is switched off, and closes it', async () => {
    const person = await t.createUser({ roles: ['signer'], name: 'Dora Disabled' });
    const tab = listen(await t.signInAs(person));
    await tab.next('ready');
    await t.db.update(users).set({ status: 'disabled' }).where(eq(users.id, person.id));
    await t.realtime.publish(invalidationChannel, JSON.stringify({ userId: person.id }));
    await tab.next('signed-out');
    expect(await tab.closed).toBe(4401);
  });

  it('answers a change of roles with access-changed and stays open while the sign-in holds', async () => {
    const person = await t.createUser({ roles: ['signer'], name: 'Rita Roles' });
    const tab = listen(await t.signInAs(person));
    await tab.next('ready');
    await t.db
      .update(users)
      .set({ roles: ['signer', 'title_agent'] })
      .where(eq(users.id, person.id));
    await t.realtime.publish(invalidationChannel, JSON.stringify({ userId: person.id }));
    await tab.next('access-changed');
    // A signed-out announcement for a sign-in that still holds is checked, not believed.
    await announceToUsers(t, [person.id], { type: 'signed-out' });
    await announceToUsers(t, [person.id], { type: 'access-changed' });
    await new Promise<void>((resolve) => {
      const check = () => (tab.events.filter((event) => event.type === 'access-changed').length >= 2 ? resolve() : setTimeout(check, 10));
      check();
    });
    expect(tab.events.map((event) => event.type)).not.toContain('signed-out');
    expect(tab.socket.readyState).toBe(WebSocket.OPEN);
    tab.socket.close();
  });
});
