import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import {
  assertNamesFields,
  collectionRoutes,
  createTenant,
  itChecksAuth,
  itRefusesEachAddition,
  type Tenant,
  useTestApp,
} from '../../test/helpers.ts';

const ctx = useTestApp();

const MISSING_ID = '00000000-0000-4000-8000-000000000000';
const holidays = { start_date: '2026-12-24', end_date: '2026-12-26', reason: 'Christmas' };

const call = (tenant: Tenant, method: InjectOptions['method'], url: string, payload?: unknown) =>
  ctx.app.inject({ method, url, headers: tenant.headers, payload: payload as InjectOptions['payload'] });

async function createBlackout(tenant: Tenant, body: Record<string, unknown> = {}) {
  const response = await call(tenant, 'POST', '/v1/manage/blackout-dates', { ...holidays, ...body });
  assert.equal(response.statusCode, 201, response.body);
  return response.json();
}

const blackouts = collectionRoutes('/v1/manage/blackout-dates', createBlackout);

async function latestAudit(tenant: Tenant) {
  const response = await call(tenant, 'GET', '/v1/manage/audit-logs?limit=1');
  return response.json().items[0] as {
    action: string;
    entity_id: string;
    before_state: Record<string, unknown> | null;
    after_state: Record<string, unknown> | null;
  };
}

const list = async (tenant: Tenant) => (await call(tenant, 'GET', '/v1/manage/blackout-dates')).json().items;

describe('GET /v1/manage/blackout-dates', () => {
  describe('200', () => {
    it('lists every range by start date, past ones included, and pages', async () => {
      const tenant = await createTenant(ctx.app);
      for (const start of ['2027-01-10', '2025-05-01', '2026-08-15', '2026-08-15', '2026-02-01']) {
        await createBlackout(tenant, { start_date: start, end_date: start });
      }
      const all = await list(tenant);
      assert.deepEqual(
        all.map((b: { start_date: string }) => b.start_date),
        ['2025-05-01', '2026-02-01', '2026-08-15', '2026-08-15', '2027-01-10'],
      );
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const query: string = cursor ? `&cursor=${cursor}` : '';
        const page = (await call(tenant, 'GET', `/v1/manage/blackout-dates?limit=2${query}`)).json();
        seen.push(...page.items.map((b: { id: string }) => b.id));
        cursor = page.next_cursor;
      } while (cursor);
      assert.deepEqual(
        seen,
        all.map((b: { id: string }) => b.id),
      );
    });
  });

  describe('422', () => {
    it('rejects a cursor it did not make, even one naming a real position', async () => {
      const tenant = await createTenant(ctx.app);
      await createBlackout(tenant, { start_date: '2026-01-01', end_date: '2026-01-01' });
      await createBlackout(tenant, { start_date: '2026-02-01', end_date: '2026-02-01' });
      const made = (await call(tenant, 'GET', '/v1/manage/blackout-dates?limit=1')).json().next_cursor;
      const [, signature] = made.split('.');
      const handMade = Buffer.from(JSON.stringify(['2026-01-01', MISSING_ID])).toString('base64url');
      for (const cursor of ['zzz', handMade, `${handMade}.${signature}`]) {
        const response = await call(tenant, 'GET', `/v1/manage/blackout-dates?cursor=${cursor}`);
        assert.equal(response.statusCode, 422, response.body);
        assert.equal(response.json().error.fields[0].field, 'cursor');
      }
    });

    it("refuses a cursor of another business's list, so it reveals nothing of that business", async () => {
      const owner = await createTenant(ctx.app);
      await createBlackout(owner);
      await createBlackout(owner);
      const cursor = (await call(owner, 'GET', '/v1/manage/blackout-dates?limit=1')).json().next_cursor;
      assert.ok(cursor);
      const response = await call(
        await createTenant(ctx.app),
        'GET',
        `/v1/manage/blackout-dates?cursor=${cursor}`,
      );
      assert.equal(response.statusCode, 422, response.body);
      assert.equal(response.json().error.fields[0].field, 'cursor');
    });
  });

  describe('tenant isolation', () => {
    it("never shows another business's blackouts", async () => {
      await createBlackout(await createTenant(ctx.app));
      assert.deepEqual(await list(await createTenant(ctx.app)), []);
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, blackouts.list);
  });
});

describe('POST /v1/manage/blackout-dates', () => {
  describe('201', () => {
    it('creates a full-day range and audits settings.blackout_added', async () => {
      const tenant = await createTenant(ctx.app);
      const blackout = await createBlackout(tenant);
      assert.equal(blackout.start_date, '2026-12-24');
      assert.equal(blackout.end_date, '2026-12-26');
      assert.equal(blackout.reason, 'Christmas');
      assert.equal(blackout.is_full_day, true);
      assert.ok(!Number.isNaN(Date.parse(blackout.created_at)));
      assert.deepEqual(await list(tenant), [blackout]);
      const entry = await latestAudit(tenant);
      assert.equal(entry.action, 'settings.blackout_added');
      assert.equal(entry.entity_id, blackout.id);
      assert.deepEqual(entry.after_state, blackout);
    });

    it('takes a single day without a reason, and a reason of 500 characters', async () => {
      const tenant = await createTenant(ctx.app);
      const day = await createBlackout(tenant, {
        start_date: '2026-05-01',
        end_date: '2026-05-01',
        reason: undefined,
      });
      assert.equal(day.reason, null);
      assert.equal((await createBlackout(tenant, { reason: null })).reason, null);
      assert.equal((await createBlackout(tenant, { reason: 'r'.repeat(500) })).reason.length, 500);
    });

    it('stores an empty or whitespace-only reason as no reason', async () => {
      const tenant = await createTenant(ctx.app);
      for (const reason of ['', ' \t\n ']) {
        const blackout = await createBlackout(tenant, { reason });
        assert.equal(blackout.reason, null, JSON.stringify(reason));
        assert.equal((await latestAudit(tenant)).after_state?.reason, null);
      }
    });
  });

  describe('422', () => {
    itRefusesEachAddition(() => ctx, { url: '/v1/manage/blackout-dates', body: holidays }, [
      ['an end before the start', { start_date: '2026-12-26', end_date: '2026-12-24' }, 'end_date'],
      ['a missing start_date', { start_date: undefined }, 'start_date'],
      ['a missing end_date', { end_date: undefined }, 'end_date'],
      ['a date that does not exist', { start_date: '2026-02-30' }, 'start_date'],
      ['a date with a time', { end_date: '2026-12-26T10:00:00Z' }, 'end_date'],
      ['a long reason', { reason: 'r'.repeat(501) }, 'reason'],
      ['is_full_day', { is_full_day: false }, 'is_full_day'],
    ]);
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, blackouts.add(holidays));
  });
});

describe('PATCH /v1/manage/blackout-dates/{blackout_id}', () => {
  describe('200', () => {
    it('changes the given fields and audits settings.blackout_updated', async () => {
      const tenant = await createTenant(ctx.app);
      const blackout = await createBlackout(tenant);
      const response = await call(tenant, 'PATCH', `/v1/manage/blackout-dates/${blackout.id}`, {
        end_date: '2026-12-31',
        reason: null,
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), { ...blackout, end_date: '2026-12-31', reason: null });
      const entry = await latestAudit(tenant);
      assert.equal(entry.action, 'settings.blackout_updated');
      assert.equal(entry.before_state?.end_date, '2026-12-26');
      assert.equal(entry.after_state?.end_date, '2026-12-31');
    });

    it('moves a range by changing both dates at once', async () => {
      const tenant = await createTenant(ctx.app);
      const blackout = await createBlackout(tenant);
      const response = await call(tenant, 'PATCH', `/v1/manage/blackout-dates/${blackout.id}`, {
        start_date: '2027-01-05',
        end_date: '2027-01-06',
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().start_date, '2027-01-05');
    });

    it('takes a whitespace-only reason as removing the reason', async () => {
      const tenant = await createTenant(ctx.app);
      const blackout = await createBlackout(tenant);
      const response = await call(tenant, 'PATCH', `/v1/manage/blackout-dates/${blackout.id}`, {
        reason: '  ',
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), { ...blackout, reason: null });
    });

    it('writes no audit entry when nothing changes', async () => {
      const tenant = await createTenant(ctx.app);
      const blackout = await createBlackout(tenant);
      const response = await call(tenant, 'PATCH', `/v1/manage/blackout-dates/${blackout.id}`, {
        start_date: blackout.start_date,
        reason: blackout.reason,
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), blackout);
      assert.equal((await latestAudit(tenant)).action, 'settings.blackout_added');
    });
  });

  describe('404', () => {
    it('answers not_found for an unknown id, a non-UUID and another business', async () => {
      const tenant = await createTenant(ctx.app);
      const foreign = await createBlackout(await createTenant(ctx.app));
      for (const id of [MISSING_ID, 'christmas', foreign.id]) {
        const response = await call(tenant, 'PATCH', `/v1/manage/blackout-dates/${id}`, { reason: 'Mine' });
        assert.equal(response.statusCode, 404, response.body);
        assert.equal(response.json().error.code, 'not_found');
      }
    });
  });

  describe('422', () => {
    it('checks the merged range and the field types, and keeps the stored range', async () => {
      const tenant = await createTenant(ctx.app);
      const blackout = await createBlackout(tenant);
      await assertNamesFields(
        [
          [{ start_date: '2026-12-27' }, 'end_date'],
          [{ end_date: '2026-12-23' }, 'end_date'],
          [{ start_date: 'tomorrow' }, 'start_date'],
          [{ id: MISSING_ID }, 'id'],
        ],
        (body) => call(tenant, 'PATCH', `/v1/manage/blackout-dates/${blackout.id}`, body),
      );
      assert.deepEqual(await list(tenant), [blackout]);
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, blackouts.update({ reason: 'Inventory' }));
  });
});

describe('DELETE /v1/manage/blackout-dates/{blackout_id}', () => {
  describe('204', () => {
    it('removes the range and audits settings.blackout_removed', async () => {
      const tenant = await createTenant(ctx.app);
      const blackout = await createBlackout(tenant);
      const response = await call(tenant, 'DELETE', `/v1/manage/blackout-dates/${blackout.id}`);
      assert.equal(response.statusCode, 204, response.body);
      assert.equal(response.body, '');
      assert.deepEqual(await list(tenant), []);
      const entry = await latestAudit(tenant);
      assert.equal(entry.action, 'settings.blackout_removed');
      assert.deepEqual(entry.before_state, blackout);
    });
  });

  describe('404', () => {
    it('answers not_found for an unknown id, a second delete and another business', async () => {
      const tenant = await createTenant(ctx.app);
      const blackout = await createBlackout(tenant);
      await call(tenant, 'DELETE', `/v1/manage/blackout-dates/${blackout.id}`);
      const foreignTenant = await createTenant(ctx.app);
      const foreign = await createBlackout(foreignTenant);
      for (const id of [MISSING_ID, '123', blackout.id, foreign.id]) {
        const response = await call(tenant, 'DELETE', `/v1/manage/blackout-dates/${id}`);
        assert.equal(response.statusCode, 404, response.body);
        assert.equal(response.json().error.code, 'not_found');
      }
      assert.equal((await list(foreignTenant)).length, 1);
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, blackouts.remove);
  });
});
