import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTransientDatabaseError } from '../src/db/errors.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';

// A background job retries what may succeed later (bulk imports: a placeholder's transaction that
// outlived its timeout on a loaded server) and fails what will not. Real errors from the real
// database, not hand-made objects.
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const caught = async (run: () => Promise<unknown>) => {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
};

describe('transient database errors', () => {
  it('an interactive transaction past its timeout is transient', async () => {
    const error = await caught(() => t.db.$transaction(async (tx) => tx.$queryRaw`SELECT pg_sleep(0.5)::text`, { timeout: 50 }));
    expect((error as { code?: string }).code).toBe('P2028');
    expect(isTransientDatabaseError(error)).toBe(true);
  });

  it('a unique violation is not (positive control: the same check says no)', async () => {
    const name = `transient-${Date.now()}`;
    await t.db.user.create({ data: { username: name, name, email: `${name}@example.com` } });
    const error = await caught(() => t.db.user.create({ data: { username: name, name, email: `${name}@example.com` } }));
    expect((error as { code?: string }).code).toBe('P2002');
    expect(isTransientDatabaseError(error)).toBe(false);
  });
});
