import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { daysFromNow, setupBookable } from '../../test/booking-fixtures.ts';
import { createTenant, itChecksAuth, useTestApp } from '../../test/helpers.ts';

const ctx = useTestApp();

const DAY = daysFromNow(5);
const period = { start_at: `${DAY}T10:00:00+02:00`, end_at: `${DAY}T12:00:00+02:00` };

async function withResource() {
  const biz = await setupBookable(ctx.app, {
    resources: [{ name: 'Chair', capacity_min: 1, capacity_max: 1 }],
  });
  return { biz, url: `/v1/manage/resources/${biz.resources.Chair}/blocks` };
}

describe('resource blocks', () => {
  describe('201', () => {
    it('stores the block in absolute time and audits it', async () => {
      const { biz, url } = await withResource();
      const response = await ctx.app.inject({
        method: 'POST',
        url,
        headers: biz.tenant.headers,
        payload: { ...period, reason: 'Dentist', source: 'google' },
      });
      assert.equal(response.statusCode, 201, response.body);
      const block = response.json();
      assert.equal(block.start_at, `${DAY}T08:00:00.000Z`);
      assert.equal(block.end_at, `${DAY}T10:00:00.000Z`);
      assert.equal(block.source, 'google');
      const audit = await ctx.database.db.selectFrom('audit_logs').select('action').execute();
      assert.ok(audit.some((a) => a.action === 'resource.block_added'));
    });

    it('stores an empty or whitespace-only reason as no reason', async () => {
      const { biz, url } = await withResource();
      for (const reason of ['', ' \t\n ']) {
        const response = await ctx.app.inject({
          method: 'POST',
          url,
          headers: biz.tenant.headers,
          payload: { ...period, reason },
        });
        assert.equal(response.statusCode, 201, response.body);
        assert.equal(response.json().reason, null, JSON.stringify(reason));
      }
    });
  });

  describe('200', () => {
    it('lists blocks, filtered by period, and DELETE removes one (204)', async () => {
      const { biz, url } = await withResource();
      const created = await ctx.app.inject({
        method: 'POST',
        url,
        headers: biz.tenant.headers,
        payload: period,
      });
      const listed = await ctx.app.inject({ method: 'GET', url, headers: biz.tenant.headers });
      assert.equal(listed.statusCode, 200);
      assert.equal(listed.json().items.length, 1);
      const outside = await ctx.app.inject({
        method: 'GET',
        url: `${url}?from=${encodeURIComponent(`${DAY}T12:00:00+02:00`)}`,
        headers: biz.tenant.headers,
      });
      assert.equal(outside.json().items.length, 0);
      const removed = await ctx.app.inject({
        method: 'DELETE',
        url: `${url}/${created.json().id}`,
        headers: biz.tenant.headers,
      });
      assert.equal(removed.statusCode, 204);
      const again = await ctx.app.inject({
        method: 'DELETE',
        url: `${url}/${created.json().id}`,
        headers: biz.tenant.headers,
      });
      assert.equal(again.statusCode, 404);
    });
  });

  describe('422', () => {
    it('refuses an end before the start, a timestamp without offset and unknown fields', async () => {
      const { biz, url } = await withResource();
      for (const payload of [
        { start_at: period.end_at, end_at: period.start_at },
        { start_at: 'tomorrow', end_at: period.end_at },
        { ...period, colour: 'red' },
        { start_at: period.start_at },
        { start_at: '2016-12-31T23:59:60Z', end_at: period.end_at },
      ]) {
        const response = await ctx.app.inject({ method: 'POST', url, headers: biz.tenant.headers, payload });
        assert.equal(response.statusCode, 422, JSON.stringify(payload));
      }
    });
  });

  describe('200 (pages)', () => {
    it('pages oldest first without gaps or repeats', async () => {
      const { biz, url } = await withResource();
      const ids: string[] = [];
      for (let hour = 10; hour < 15; hour++) {
        const response = await ctx.app.inject({
          method: 'POST',
          url,
          headers: biz.tenant.headers,
          payload: { start_at: `${DAY}T${hour}:00:00Z`, end_at: `${DAY}T${hour}:30:00Z` },
        });
        ids.push(response.json().id);
      }
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const query: string = cursor ? `&cursor=${cursor}` : '';
        const page = (
          await ctx.app.inject({ method: 'GET', url: `${url}?limit=2${query}`, headers: biz.tenant.headers })
        ).json();
        seen.push(...page.items.map((block: { id: string }) => block.id));
        cursor = page.next_cursor;
        assert.equal(page.has_more, cursor !== null);
      } while (cursor);
      assert.deepEqual(seen, ids);
    });
  });

  describe('422 (list)', () => {
    it("refuses a cursor it did not make, another business's and another resource's", async () => {
      const { biz, url } = await withResource();
      for (let hour = 10; hour < 12; hour++) {
        await ctx.app.inject({
          method: 'POST',
          url,
          headers: biz.tenant.headers,
          payload: { start_at: `${DAY}T${hour}:00:00Z`, end_at: `${DAY}T${hour}:30:00Z` },
        });
      }
      const page = await ctx.app.inject({
        method: 'GET',
        url: `${url}?limit=1`,
        headers: biz.tenant.headers,
      });
      const cursor = page.json().next_cursor;
      assert.ok(cursor);
      const other = await withResource();
      const otherResource = await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/resources',
        headers: biz.tenant.headers,
        payload: { name: 'Sofa', capacity_min: 1, capacity_max: 1 },
      });
      const handMade = Buffer.from(JSON.stringify([new Date().toISOString(), biz.resources.Chair])).toString(
        'base64url',
      );
      for (const [headers, listUrl] of [
        [biz.tenant.headers, `${url}?cursor=${handMade}`],
        [other.biz.tenant.headers, `${other.url}?cursor=${cursor}`],
        [biz.tenant.headers, `/v1/manage/resources/${otherResource.json().id}/blocks?cursor=${cursor}`],
      ] as const) {
        const response = await ctx.app.inject({ method: 'GET', url: listUrl, headers });
        assert.equal(response.statusCode, 422, `${listUrl}: ${response.body}`);
        assert.equal(response.json().error.fields[0].field, 'cursor');
      }
    });

    it('refuses a period bound that is not a real moment', async () => {
      const { biz, url } = await withResource();
      const response = await ctx.app.inject({
        method: 'GET',
        url: `${url}?from=${encodeURIComponent('2016-12-31T23:59:60Z')}`,
        headers: biz.tenant.headers,
      });
      assert.equal(response.statusCode, 422);
      assert.equal(response.json().error.fields[0].field, 'from');
    });
  });

  describe('404', () => {
    it("answers not_found for another business's resource", async () => {
      const { url } = await withResource();
      const other = await createTenant(ctx.app);
      for (const method of ['GET', 'POST'] as const) {
        const response = await ctx.app.inject({
          method,
          url,
          headers: other.headers,
          payload: method === 'POST' ? period : undefined,
        });
        assert.equal(response.statusCode, 404, method);
      }
    });
  });

  describe('auth', () => {
    itChecksAuth(
      () => ctx,
      async () => {
        const { biz, url } = await withResource();
        return {
          tenant: biz.tenant,
          route: { method: 'POST', url, payload: period, scope: 'write', staff: false },
        };
      },
    );
  });
});
