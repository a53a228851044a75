import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  bearer,
  createKey,
  createTenant,
  dashboardToken,
  itChecksAuth,
  type Tenant,
  useTestApp,
} from '../../test/helpers.ts';
import { recordAudit } from './audit.service.ts';

const ctx = useTestApp();

const auditLogs = (tenant: Tenant, query = '', headers = tenant.headers) =>
  ctx.app.inject({ method: 'GET', url: `/v1/manage/audit-logs${query}`, headers });

async function recordMany(tenant: Tenant, actions: string[]): Promise<void> {
  for (const action of actions) {
    await recordAudit(
      ctx.database.db,
      { businessId: tenant.businessId, actor: 'tester@example.com' },
      { action, entityType: 'test', entityId: null, meta: { action } },
    );
  }
}

describe('recordAudit', () => {
  it('writes nothing when the transaction of the change rolls back', async () => {
    const tenant = await createTenant(ctx.app);
    await assert.rejects(
      ctx.database.db.transaction().execute(async (tx) => {
        await recordAudit(
          tx,
          { businessId: tenant.businessId, actor: 'tester@example.com' },
          { action: 'test.rolled_back', entityType: 'test', entityId: null },
        );
        throw new Error('the change failed');
      }),
    );
    const { items } = (await auditLogs(tenant)).json();
    assert.ok(!items.some((entry: { action: string }) => entry.action === 'test.rolled_back'));
  });
});

describe('GET /v1/manage/audit-logs', () => {
  describe('200', () => {
    it('lists entries newest first with the full entry shape', async () => {
      const tenant = await createTenant(ctx.app);
      const created = await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/api-keys',
        headers: tenant.headers,
        payload: { name: 'first' },
      });
      await ctx.app.inject({
        method: 'DELETE',
        url: `/v1/manage/api-keys/${created.json().id}`,
        headers: tenant.headers,
      });
      const response = await auditLogs(tenant);
      assert.equal(response.statusCode, 200);
      const { items, has_more, next_cursor } = response.json();
      assert.deepEqual(
        items.map((entry: { action: string }) => entry.action),
        ['api_key.revoked', 'api_key.created'],
      );
      assert.equal(has_more, false);
      assert.equal(next_cursor, null);
      const [revoked, createdEntry] = items;
      assert.deepEqual(Object.keys(revoked).sort(), [
        'action',
        'after_state',
        'before_state',
        'created_at',
        'entity_id',
        'entity_type',
        'id',
        'meta',
        'user_email',
      ]);
      assert.equal(revoked.user_email, 'api_key:default');
      assert.equal(revoked.entity_type, 'api_key');
      assert.equal(revoked.entity_id, created.json().id);
      assert.equal(revoked.before_state, null);
      assert.equal(revoked.after_state.is_active, false);
      assert.deepEqual(revoked.meta, {});
      assert.equal(createdEntry.after_state.name, 'first');
      assert.ok(Date.parse(revoked.created_at) >= Date.parse(createdEntry.created_at));
    });

    it('pages newest first through limit and cursor without gaps or repeats', async () => {
      const tenant = await createTenant(ctx.app);
      const actions = Array.from({ length: 5 }, (_, i) => `test.step_${i}`);
      await recordMany(tenant, actions);
      const seen: string[] = [];
      let query = '?limit=2';
      for (;;) {
        const page = (await auditLogs(tenant, query)).json();
        seen.push(...page.items.map((entry: { action: string }) => entry.action));
        assert.equal(page.has_more, page.next_cursor !== null);
        if (!page.has_more) break;
        query = `?limit=2&cursor=${page.next_cursor}`;
      }
      assert.deepEqual(seen, [...actions].reverse());
    });

    it("never shows another business's entries", async () => {
      const tenant = await createTenant(ctx.app);
      const other = await createTenant(ctx.app);
      await recordMany(other, ['test.secret']);
      await recordMany(tenant, ['test.mine']);
      const { items } = (await auditLogs(tenant)).json();
      assert.deepEqual(
        items.map((entry: { action: string }) => entry.action),
        ['test.mine'],
      );
    });

    it("narrows the log to one entity's entries by entity_type and entity_id", async () => {
      const tenant = await createTenant(ctx.app);
      const [one, two] = [crypto.randomUUID(), crypto.randomUUID()];
      const actor = { businessId: tenant.businessId, actor: 'tester@example.com' };
      await recordAudit(ctx.database.db, actor, {
        action: 'booking.a',
        entityType: 'booking',
        entityId: one,
      });
      await recordAudit(ctx.database.db, actor, {
        action: 'booking.b',
        entityType: 'booking',
        entityId: two,
      });
      await recordAudit(ctx.database.db, actor, {
        action: 'resource.c',
        entityType: 'resource',
        entityId: one,
      });
      await recordAudit(ctx.database.db, actor, {
        action: 'booking.d',
        entityType: 'booking',
        entityId: one,
      });
      const actions = async (query: string) =>
        (await auditLogs(tenant, query)).json().items.map((entry: { action: string }) => entry.action);
      assert.deepEqual(await actions(`?entity_type=booking&entity_id=${one}`), ['booking.d', 'booking.a']);
      assert.deepEqual(await actions('?entity_type=booking'), ['booking.d', 'booking.b', 'booking.a']);
      assert.deepEqual(await actions(`?entity_id=${one}`), ['booking.d', 'resource.c', 'booking.a']);
      // Another business asking for the same entity sees nothing of it.
      const other = await createTenant(ctx.app);
      assert.deepEqual((await auditLogs(other, `?entity_id=${one}`)).json().items, []);
    });

    it('names the acting user: a dashboard user by email', async () => {
      const tenant = await createTenant(ctx.app);
      const owner = await dashboardToken(ctx.app, tenant, 'business_owner');
      await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/api-keys',
        headers: bearer(owner),
        payload: { name: 'by owner' },
      });
      const { items } = (await auditLogs(tenant)).json();
      assert.equal(items[0].action, 'api_key.created');
      assert.match(items[0].user_email, /^business_owner-.*@example\.com$/);
    });
  });

  describe('422', () => {
    it('refuses a limit over 200 and cursors it did not make', async () => {
      const tenant = await createTenant(ctx.app);
      await recordMany(tenant, ['test.one', 'test.two']);
      const made: string = (await auditLogs(tenant, '?limit=1')).json().next_cursor;
      const [, signature] = made.split('.');
      const handMade = Buffer.from(JSON.stringify(['1'])).toString('base64url');
      for (const query of [
        '?limit=201',
        '?entity_id=not-a-uuid',
        `?entity_type=${'x'.repeat(51)}`,
        '?cursor=garbage',
        `?cursor=${handMade}`,
        `?cursor=${handMade}.${signature}`,
        `?cursor=${made}.${signature}`,
      ]) {
        const response = await auditLogs(tenant, query);
        assert.equal(response.statusCode, 422, `${query}: ${response.body}`);
        assert.equal(response.json().error.code, 'validation_error');
      }
    });

    it("refuses a cursor of another business's log, so it reveals nothing of that business", async () => {
      const owner = await createTenant(ctx.app);
      await recordMany(owner, ['test.one', 'test.two']);
      const cursor = (await auditLogs(owner, '?limit=1')).json().next_cursor;
      assert.ok(cursor);
      const other = await createTenant(ctx.app);
      await recordMany(other, ['test.theirs']);
      const response = await auditLogs(other, `?cursor=${cursor}`);
      assert.equal(response.statusCode, 422, response.body);
      assert.equal(response.json().error.fields[0].field, 'cursor');
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, {
      route: () => ({ method: 'GET', url: '/v1/manage/audit-logs', scope: 'read', staff: true }),
    });
  });
});

describe('secret URLs in the audit log', () => {
  it('shows the URLs of webhooks and calendar imports whole to owners and admin keys, their origin to staff members and other keys', async () => {
    const tenant = await createTenant(ctx.app);
    const resolve = ctx.app.webhooks.targets.resolve;
    ctx.app.webhooks.targets.resolve = async () => [{ address: '93.184.215.14', family: 4 }];
    try {
      const webhookUrl = 'https://hooks.example.com:8443/in/secret-token-1';
      const importUrl = 'https://calendar.example.com/private/secret-token-2/basic.ics';
      const webhook = await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/webhooks',
        headers: tenant.headers,
        payload: { url: webhookUrl, events: ['*'] },
      });
      assert.equal(webhook.statusCode, 201, webhook.body);
      const removed = await ctx.app.inject({
        method: 'DELETE',
        url: `/v1/manage/webhooks/${webhook.json().id}`,
        headers: tenant.headers,
      });
      assert.equal(removed.statusCode, 204, removed.body);
      const resource = await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/resources',
        headers: tenant.headers,
        payload: { name: 'Table 1', capacity_min: 1, capacity_max: 4 },
      });
      assert.equal(resource.statusCode, 201, resource.body);
      const calendarImport = await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/calendar-imports',
        headers: tenant.headers,
        payload: { url: importUrl, resource_id: resource.json().id },
      });
      assert.equal(calendarImport.statusCode, 201, calendarImport.body);

      const urlsSeenBy = async (headers: Record<string, string>) => {
        const response = await auditLogs(tenant, '?limit=100', headers);
        assert.equal(response.statusCode, 200, response.body);
        return (response.json().items as { action: string; before_state: State; after_state: State }[])
          .filter((entry) => /^(webhook|calendar_import)\./.test(entry.action))
          .map((entry) => `${entry.action} ${(entry.after_state ?? entry.before_state)?.url}`)
          .sort();
      };
      type State = { url?: string } | null;
      const whole = [
        `calendar_import.created ${importUrl}`,
        `webhook.created ${webhookUrl}`,
        `webhook.deleted ${webhookUrl}`,
      ];
      const origins = [
        'calendar_import.created https://calendar.example.com',
        'webhook.created https://hooks.example.com:8443',
        'webhook.deleted https://hooks.example.com:8443',
      ];
      const owner = await dashboardToken(ctx.app, tenant, 'business_owner');
      const staff = await dashboardToken(ctx.app, tenant, 'staff_member');
      assert.deepEqual(await urlsSeenBy(tenant.headers), whole);
      assert.deepEqual(await urlsSeenBy(bearer(owner)), whole);
      assert.deepEqual(await urlsSeenBy(bearer(await createKey(ctx.app, tenant, ['admin']))), whole);
      assert.deepEqual(await urlsSeenBy(bearer(staff)), origins);
      assert.deepEqual(await urlsSeenBy(bearer(await createKey(ctx.app, tenant, ['read']))), origins);
      assert.deepEqual(
        await urlsSeenBy(bearer(await createKey(ctx.app, tenant, ['read', 'write']))),
        origins,
      );
    } finally {
      ctx.app.webhooks.targets.resolve = resolve;
    }
  });
});
