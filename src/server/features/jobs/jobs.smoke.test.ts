import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';
import { buildMultipart, makePdf } from '#test/pdf-fixtures.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

it('lets an agent create a job, upload two PDFs, reorder them and read the verified audit trail', async () => {
  const agent = await t.createUser({ roles: ['title_agent'] });
  const headers = await t.signInAs(agent);
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/jobs',
    headers,
    payload: { title: 'Deed of trust', notarizationType: 'acknowledgment', signers: [{ name: 'Sam Signer', email: 'sam@example.test' }] },
  });
  expect(created.statusCode).toBe(201);
  const job = created.json();
  expect(job).toMatchObject({ title: 'Deed of trust', status: 'draft', participantCount: 1, permissions: { canEdit: true } });

  const upload = buildMultipart([
    { name: 'first.pdf', content: await makePdf(2) },
    { name: 'second.pdf', content: await makePdf(1) },
  ]);
  const uploaded = await t.app.inject({
    method: 'POST',
    url: `/api/jobs/${job.id}/documents/batch`,
    headers: { ...headers, ...upload.headers },
    payload: upload.payload,
  });
  expect(uploaded.statusCode).toBe(201);
  const items = uploaded.json().items as Array<{ id: string; name: string; pageCount: number }>;
  expect(items.map((item) => [item.name, item.pageCount])).toEqual([
    ['first.pdf', 2],
    ['second.pdf', 1],
  ]);

  const reordered = await t.app.inject({
    method: 'PATCH',
    url: `/api/jobs/${job.id}/documents/reorder`,
    headers,
    payload: { order: [items[1]?.id, items[0]?.id] },
  });
  expect(reordered.statusCode).toBe(200);
  const list = await t.app.inject({ method: 'GET', url: `/api/jobs/${job.id}/documents`, headers });
  expect(list.json().items.map((item: { name: string }) => item.name)).toEqual(['second.pdf', 'first.pdf']);

  const listed = await t.app.inject({ method: 'GET', url: '/api/jobs?q=deed', headers });
  expect(listed.json()).toMatchObject({ total: 1, items: [{ id: job.id, documentCount: 2, participantCount: 1 }] });

  const audit = await t.app.inject({ method: 'GET', url: `/api/jobs/${job.id}/audit`, headers });
  expect(audit.json().verification).toMatchObject({ isValid: true, eventCount: 5 });
  expect(audit.json().events.map((event: { action: string }) => event.action)).toEqual([
    'job.created',
    'participant.added',
    'document.uploaded',
    'document.uploaded',
    'documents.reordered',
  ]);

  const stranger = await t.createUser({ roles: ['signer'] });
  const hidden = await t.app.inject({ method: 'GET', url: `/api/jobs/${job.id}`, headers: await t.signInAs(stranger) });
  expect(hidden.statusCode).toBe(404);
});
