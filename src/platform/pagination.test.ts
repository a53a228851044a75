import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createTenant, createTestApp, type Tenant, type TestContext } from '../../test/helpers.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { AppError } from './errors.ts';
import { CursorCodec, keysetPage } from './pagination.ts';
import { deriveKey } from './secrets.ts';

const isCursorError = (error: unknown) =>
  error instanceof AppError &&
  error.status === 422 &&
  error.code === 'validation_error' &&
  error.fields?.[0]?.field === 'cursor';

describe('CursorCodec', () => {
  const codec = new CursorCodec(deriveKey('a secret of at least thirty-two characters', 'test cursors'));

  it('round-trips the sort values as an opaque URL-safe string', () => {
    const cursor = codec.encode('resources:b1', ['2026-03-29 10:00:00.123456+00', '7', 'a1b2']);
    assert.match(cursor, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    assert.deepEqual(codec.decode('resources:b1', cursor, 3), ['2026-03-29 10:00:00.123456+00', '7', 'a1b2']);
  });

  it("refuses a cursor of another list or another business's list", () => {
    const cursor = codec.encode('resources:b1', ['1', 'x']);
    assert.throws(() => codec.decode('resources:b2', cursor, 2), isCursorError);
    assert.throws(() => codec.decode('services:b1', cursor, 2), isCursorError);
  });

  it('refuses garbage, a forged payload, another secret and the wrong number of values', () => {
    const cursor = codec.encode('l:b', ['1', 'x']);
    const [, signature] = cursor.split('.');
    const forged = `${Buffer.from('["999","x"]').toString('base64url')}.${signature}`;
    const otherSecret = new CursorCodec(
      deriveKey('another secret of thirty-two characters!', 'test cursors'),
    );
    for (const bad of ['garbage', '', 'a.b.c', forged, otherSecret.encode('l:b', ['1', 'x'])]) {
      assert.throws(() => codec.decode('l:b', bad, 2), isCursorError, bad);
    }
    assert.throws(() => codec.decode('l:b', cursor, 3), isCursorError);
  });
});

describe('keysetPage', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  before(async () => {
    ctx = await createTestApp();
    tenant = await createTenant(ctx.app);
  });
  after(() => ctx.close());

  /** Audit rows stamped within one millisecond, microseconds apart, newest first. */
  async function seedSameMillisecond(count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 1; i <= count; i++) {
      const row = await ctx.app.db
        .insertInto('audit_logs')
        .values({
          business_id: tenant.businessId,
          user_email: 'tester@example.com',
          action: `test.${i}`,
          entity_type: 'test',
          entity_id: null,
          before_state: null,
          after_state: null,
          meta: '{}',
          created_at: sql`${`2026-01-01 00:00:00.00000${i}+00`}::timestamptz`,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      ids.push(row.id);
    }
    return ids.reverse();
  }

  const list = {
    name: 'test',
    keys: [
      { ref: 'created_at', type: 'timestamptz' },
      { ref: 'id', type: 'uuid' },
    ],
    direction: 'desc',
  } as const;
  const page = (cursor?: string) =>
    keysetPage(
      ctx.app.db.selectFrom('audit_logs').select('id').where('business_id', '=', tenant.businessId),
      { ...list, keys: [...list.keys] },
      { cursor, limit: 1, owner: tenant.businessId, codec: ctx.app.cursors },
      (row) => row.id,
    );

  it('keeps microseconds apart: paging one by one serves every row once, in order', async () => {
    await ctx.app.db.deleteFrom('audit_logs').execute();
    const expected = await seedSameMillisecond(5);
    const served: string[] = [];
    let cursor: string | undefined;
    do {
      const result = await page(cursor);
      served.push(...result.items);
      cursor = result.next_cursor ?? undefined;
    } while (cursor);
    assert.deepEqual(served, expected);
  });

  it('goes on after a row that was deleted between two pages', async () => {
    await ctx.app.db.deleteFrom('audit_logs').execute();
    const expected = await seedSameMillisecond(3);
    const first = await page();
    assert.deepEqual(first.items, [expected[0]]);
    await ctx.app.db.deleteFrom('audit_logs').where('id', '=', expected[0]!).execute();
    const second = await page(first.next_cursor!);
    assert.deepEqual(second.items, [expected[1]]);
  });
});

describe('paginated lists over HTTP', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  before(async () => {
    ctx = await createTestApp();
    tenant = await createTenant(ctx.app);
    for (let i = 0; i < 205; i++) {
      await recordAudit(
        ctx.database.db,
        { businessId: tenant.businessId, actor: 'tester@example.com' },
        { action: `test.entry_${i}`, entityType: 'test', entityId: null },
      );
    }
  });
  after(() => ctx.close());
  const list = (query: string) =>
    ctx.app.inject({ method: 'GET', url: `/v1/manage/audit-logs${query}`, headers: tenant.headers });

  describe('200', () => {
    it('serve 50 items by default and up to 200 on request', async () => {
      const byDefault = (await list('')).json();
      assert.equal(byDefault.items.length, 50);
      assert.equal(byDefault.has_more, true);
      assert.equal(typeof byDefault.next_cursor, 'string');
      const most = (await list('?limit=200')).json();
      assert.equal(most.items.length, 200);
      const rest = (await list(`?limit=200&cursor=${most.next_cursor}`)).json();
      assert.equal(rest.items.length, 5);
      assert.equal(rest.has_more, false);
      assert.equal(rest.next_cursor, null);
    });
  });

  describe('422', () => {
    it('refuse a limit over 200, under 1 or not a number, naming limit', async () => {
      for (const query of ['?limit=201', '?limit=0', '?limit=-5', '?limit=ten', '?limit=2.5']) {
        const response = await list(query);
        assert.equal(response.statusCode, 422, query);
        assert.equal(response.json().error.code, 'validation_error');
        assert.equal(response.json().error.fields[0].field, 'limit');
      }
    });

    it('refuse a garbage cursor, naming cursor', async () => {
      for (const query of ['?cursor=garbage', `?cursor=${'x'.repeat(600)}`]) {
        const response = await list(query);
        assert.equal(response.statusCode, 422, query);
        assert.equal(response.json().error.fields[0].field, 'cursor');
      }
    });

    it('refuse unknown query parameters', async () => {
      const response = await list('?page=2');
      assert.equal(response.statusCode, 422);
      assert.equal(response.json().error.fields[0].field, 'page');
    });
  });
});
