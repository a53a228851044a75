// test lane: system
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startProcess, stopProcess } from '../../bench/process.ts';
import {
  createTenant,
  createTestApp,
  ENGINE,
  TEST_PROCESS_ENV,
  type Tenant,
  type TestContext,
} from '../../test/helpers.ts';

const FIXTURE = fileURLToPath(new URL('./idempotency-crash.fixture.ts', import.meta.url));

let ctx: TestContext;
before(async () => {
  ctx = await createTestApp({}, (app) => {
    // What the database holds at the moment the answer is about to leave.
    app.addHook('onSend', async (request, reply) => {
      if (request.headers['x-probe-stored'] !== 'yes') return;
      const row = await app.db
        .selectFrom('idempotency_keys')
        .select('status_code')
        .where('key', '=', String(request.headers['idempotency-key']))
        .executeTakeFirst();
      reply.header('x-stored-before-answer', String(row?.status_code ?? 'none'));
    });
  });
});
after(() => ctx.close());

const resourceBody = { name: 'Window table', capacity_min: 1, capacity_max: 4 };

async function countResources(tenant: Tenant): Promise<number> {
  const row = await ctx.app.db
    .selectFrom('resources')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('business_id', '=', tenant.businessId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('a change and its idempotent answer', () => {
  it('are committed together: the answer is stored before it is sent', async () => {
    const tenant = await createTenant(ctx.app);
    const response = await ctx.app.inject({
      method: 'POST',
      url: '/v1/manage/resources',
      headers: { ...tenant.headers, 'idempotency-key': 'together', 'x-probe-stored': 'yes' },
      payload: resourceBody,
    });
    assert.equal(response.statusCode, 201, response.body);
    assert.equal(response.headers['x-stored-before-answer'], '201');
  });

  it('survive a server killed between the commit and the answer: the retry replays, it does not repeat', async (t) => {
    if (ENGINE !== 'postgres' || !ctx.databaseUrl) {
      t.skip('needs a PostgreSQL server that a second process can share');
      return;
    }
    const tenant = await createTenant(ctx.app);
    const { child, url } = await startProcess(
      'src/main.ts',
      { ...TEST_PROCESS_ENV, DATABASE_URL: ctx.databaseUrl, CRASH_AFTER_CREATING: resourceBody.name },
      { args: ['serve'], nodeArgs: ['--import', FIXTURE], readyPath: '/readyz' },
    );
    t.after(() => stopProcess(child));
    const exited = once(child, 'exit');

    const headers = { ...tenant.headers, 'content-type': 'application/json', 'idempotency-key': 'crash-1' };
    await assert.rejects(
      fetch(`${url}/v1/manage/resources`, {
        method: 'POST',
        headers,
        body: JSON.stringify(resourceBody),
      }),
      'the server died before answering',
    );
    const [, signal] = await exited;
    assert.equal(signal, 'SIGKILL');
    assert.equal(await countResources(tenant), 1, 'the change itself committed');

    const retry = await ctx.app.inject({
      method: 'POST',
      url: '/v1/manage/resources',
      headers,
      payload: resourceBody,
    });
    assert.equal(retry.statusCode, 201, retry.body);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.equal(retry.json().name, resourceBody.name);
    assert.equal(await countResources(tenant), 1, 'the retry created nothing');
  });
});
