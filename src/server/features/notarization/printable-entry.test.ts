import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, type JobKit } from '#test/job-fixtures.ts';
import { buildMultipart, makePdf } from '#test/pdf-fixtures.ts';

/**
 * Text printed on a notarized record is refused where it is typed when no font of the record can
 * print it (decision 032): once on the record (the audit trail, a
 * document whose fields are filled) it could never be corrected, and the seal would be refused for
 * good. A sentence names the character and its code point.
 */

let t: TestApp;
let kit: JobKit;
let agent: TestUser;
let notary: TestUser;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createJobKit(t);
  agent = await t.createUser({ roles: ['title_agent'] });
  notary = await kit.createNotary({ name: 'Nora Notary' });
});
afterAll(async () => t?.close());

const refusal = (label: string, text: string, character: string, codePoint: string) => ({
  error: 'unprintable_text',
  message: `The ${label} “${text}” has a character no font of a notarized record can print (${character}, ${codePoint}). Write it without that character.`,
});

describe('text no font prints is refused where it is typed', () => {
  it('refuses a job title or a signer’s name with such a character, and creates nothing', async () => {
    const titled = await kit.call(agent, 'POST', '/api/jobs', { title: 'Deed 🏠', notarizationType: 'acknowledgment', signers: [] });
    expect(titled.statusCode).toBe(400);
    expect(titled.json()).toEqual(refusal('job title', 'Deed 🏠', '🏠', 'U+1F3E0'));
    const named = await kit.call(agent, 'POST', '/api/jobs', {
      title: 'Deed',
      notarizationType: 'acknowledgment',
      signers: [{ name: 'Sam 🂡 Signer', email: 'sam@example.test' }],
    });
    expect(named.statusCode).toBe(400);
    expect(named.json()).toEqual(refusal('signer name', 'Sam 🂡 Signer', '🂡', 'U+1F0A1'));
    const list = (await kit.call(agent, 'GET', '/api/jobs')).json() as { total: number };
    expect(list.total).toBe(0);
  });

  it('refuses such a name, title, file name or reason on a job that exists, and changes nothing', async () => {
    const job = await kit.createJob(agent, { notaryId: notary.id, signers: [{ name: 'Sam Signer', email: 'sam2@example.test' }] });
    const [participant] = job.participants;
    const renamed = await kit.call(agent, 'PATCH', `/api/jobs/${job.id}/signers/${participant?.id ?? ''}`, { name: 'Sam ✡︎ 🙂' });
    expect(renamed.statusCode).toBe(400);
    expect(renamed.json().error).toBe('unprintable_text');
    const added = await kit.call(agent, 'POST', `/api/jobs/${job.id}/signers`, { name: 'Wren 🦜', email: 'wren@example.test', role: 'witness' });
    expect(added.json()).toEqual(refusal('witness name', 'Wren 🦜', '🦜', 'U+1F99C'));
    const retitled = await kit.call(agent, 'PATCH', `/api/jobs/${job.id}`, { title: 'Closing 🔑', version: job.version });
    expect(retitled.json()).toEqual(refusal('job title', 'Closing 🔑', '🔑', 'U+1F511'));

    const body = buildMultipart([{ name: '🏠 deed.pdf', content: await makePdf(1) }]);
    const uploaded = await t.app.inject({
      method: 'POST',
      url: `/api/jobs/${job.id}/documents`,
      headers: { ...(await kit.headersFor(agent)), ...body.headers },
      payload: body.payload,
    });
    expect(uploaded.statusCode).toBe(400);
    expect(uploaded.json()).toEqual(refusal('file name', '🏠 deed.pdf', '🏠', 'U+1F3E0'));

    const bypass = await kit.call(notary, 'POST', `/api/jobs/${job.id}/signers/${participant?.id ?? ''}/id-bypass`, {
      enabled: true,
      reason: 'Known to me 👍 for years',
      method: 'personal_knowledge',
    });
    expect(bypass.json()).toEqual(refusal('reason', 'Known to me 👍 for years', '👍', 'U+1F44D'));

    const after = await kit.getJob(agent, job.id);
    expect(after).toMatchObject({ title: job.title, version: job.version, documentCount: 0 });
    expect(after.participants.map((person) => [person.name, person.isIdBypassed])).toEqual([['Sam Signer', false]]);
  });

  it('takes names in every script an embedded font prints', async () => {
    for (const name of ['Nguyễn Thị Ánh', 'Ελένη Παπαδοπούλου', 'Анна Иванова', 'فاطمة الزهراء', 'שרה כהן', 'प्रिया शर्मा', '王小明']) {
      const created = await kit.call(agent, 'POST', '/api/jobs', {
        title: `Deed for ${name}`,
        notarizationType: 'acknowledgment',
        signers: [{ name, email: `p${name.length}-${Math.random().toString(36).slice(2)}@example.test` }],
      });
      expect(created.statusCode, `${name}: ${created.body}`).toBe(201);
    }
  });
});
