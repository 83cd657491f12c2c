import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';
import { isRootDb, prepareStatement, queryPrepared } from './prepared.ts';

describe('queryPrepared, the hand-written statements of hot reads', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('names a statement by its text, so two texts never share a name', () => {
    const one = prepareStatement('probe', 'select 1');
    expect(one.name).toMatch(/^probe_[0-9a-f]{12}$/);
    expect(prepareStatement('probe', 'select 1')).toEqual(one);
    expect(prepareStatement('probe', 'select 2').name).not.toBe(one.name);
  });

  it('answers the same rows each time it runs, with the values it is given (on PGlite and on PostgreSQL)', async () => {
    const statement = prepareStatement('probe', 'select $1::int + 1 as next, $2::text as word');
    for (const value of [1, 41, -3]) {
      expect(await queryPrepared<{ next: number; word: string }>(t.db, statement, [value, `w${value}`])).toEqual([{ next: value + 1, word: `w${value}` }]);
    }
  });

  it('turns away a transaction: its statements go through drizzle on the transaction’s own connection', async () => {
    expect(isRootDb(t.db)).toBe(true);
    await t.db.transaction(async (tx) => {
      expect(isRootDb(tx)).toBe(false);
      await expect(queryPrepared(tx as never, prepareStatement('probe', 'select 1'), [])).rejects.toThrow('queryPrepared needs the root database client');
    });
  });
});
