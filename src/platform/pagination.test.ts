import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTenant, createTestApp, type Tenant, type TestContext } from '../../test/helpers.ts';
import { recordAudit } from '../audit/audit.ts';
import { AppError } from './errors.ts';
import { afterRow, decodeCursor, decodeCursorStrings, encodeCursor, toPage } from './pagination.ts';

const isCursorError = (error: unknown) =>
  error instanceof AppError &&
  error.status === 422 &&
  error.code === 'validation_error' &&
  error.fields?.[0]?.field === 'cursor';

describe('cursors', () => {
  it('round-trip the keyset values of a row as an opaque URL-safe string', () => {
    const values = ['2026-03-29', 7, 'a1b2', null, true];
    const cursor = encodeCursor(values);
    assert.match(cursor, /^[A-Za-z0-9_-]+$/);
    assert.deepEqual(decodeCursor(cursor, 5), values);
  });

  it('are absent when no cursor is sent', () => {
    assert.equal(decodeCursor(undefined, 1), null);
    assert.equal(decodeCursor('', 1), null);
    assert.equal(decodeCursorStrings(undefined, 2), null);
  });

  it('refuse garbage, the wrong number of values and values of the wrong kind with a 422 on cursor', () => {
    const bad = [
      'garbage!',
      Buffer.from('not json').toString('base64url'),
      encodeCursor(['a']),
      Buffer.from('{"a":1}').toString('base64url'),
      Buffer.from('[{"nested":1}]').toString('base64url'),
    ];
    for (const cursor of bad) assert.throws(() => decodeCursor(cursor, 2), isCursorError, cursor);
    assert.throws(() => decodeCursorStrings(encodeCursor(['a', 1]), 2), isCursorError);
    assert.deepEqual(decodeCursorStrings(encodeCursor(['a', 'b']), 2), ['a', 'b']);
  });

  it('refuse a row position that is not an id', () => {
    assert.throws(() => afterRow('api_keys', 'not-a-uuid'), isCursorError);
  });
});

describe('toPage', () => {
  const rows = [{ id: 'a' }, { id: 'b' }, { id: 'c' }];
  const keyOf = (row: { id: string }) => [row.id];
  const map = (row: { id: string }) => row.id.toUpperCase();

  it('serves limit rows and a cursor at the last one when one more row was fetched', () => {
    const page = toPage(rows, 2, keyOf, map);
    assert.deepEqual(page.items, ['A', 'B']);
    assert.equal(page.has_more, true);
    assert.deepEqual(decodeCursor(page.next_cursor!, 1), ['b']);
  });

  it('ends the list when no extra row came back', () => {
    assert.deepEqual(toPage(rows, 3, keyOf, map), {
      items: ['A', 'B', 'C'],
      next_cursor: null,
      has_more: false,
    });
    assert.deepEqual(toPage([], 3, keyOf, map), { items: [], next_cursor: null, has_more: false });
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
