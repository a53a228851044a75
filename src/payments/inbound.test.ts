import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestContext, useTestApp } from '../../test/helpers.ts';
import { signEvent } from './inbound.events.ts';

const ctx = useTestApp();

const eventBody = (id: string, type = 'customer.created') =>
  JSON.stringify({
    id,
    object: 'event',
    type,
    created: Math.floor(Date.now() / 1000),
    data: { object: { id: 'cus_1' } },
  });

const post = (body: string, headers: Record<string, string>) =>
  ctx.app.inject({
    method: 'POST',
    url: '/webhooks/payments',
    headers: { 'content-type': 'application/json', ...headers },
    payload: body,
  });

const recorded = () => ctx.database.db.selectFrom('processor_events').selectAll().execute();

describe('POST /webhooks/payments', () => {
  describe('200', () => {
    it('acknowledges a signed event of an unknown type once, under either header name', async () => {
      const body = eventBody('evt_unknown_1');
      const signature = signEvent(body, ctx.app.payments.webhookSecret, Date.now());
      for (const header of ['payment-processor-signature', 'stripe-signature']) {
        const response = await post(body, { [header]: signature });
        assert.equal(response.statusCode, 200, response.body);
        assert.deepEqual(response.json(), { received: true });
      }
      assert.deepEqual(
        (await recorded()).map((row) => [row.id, row.type]),
        [['evt_unknown_1', 'customer.created']],
      );
    });
  });

  describe('400', () => {
    it('refuses a missing, wrong, stale or altered signature and records nothing', async () => {
      const body = eventBody('evt_bad_1');
      const secret = ctx.app.payments.webhookSecret;
      const now = Date.now();
      const attempts: Record<string, string>[] = [
        {},
        { 'payment-processor-signature': 'garbage' },
        { 'payment-processor-signature': signEvent(body, 'whsec_other', now) },
        { 'payment-processor-signature': signEvent(body, secret, now - 301_000) },
        { 'stripe-signature': signEvent(body.replace('cus_1', 'cus_2'), secret, now) },
      ];
      for (const headers of attempts) {
        const response = await post(body, headers);
        assert.equal(response.statusCode, 400, `${JSON.stringify(headers)}: ${response.body}`);
        assert.equal(response.json().error.code, 'bad_request');
      }
      assert.deepEqual(await recorded(), []);
    });
  });
});

describe('POST /webhooks/payments with two signing secrets (platform and connected accounts)', () => {
  let two: TestContext;
  before(async () => {
    two = await createTestApp({ paymentsWebhookSecret: 'whsec_platform, whsec_connect' });
  });
  after(() => two.close());

  it('accepts an event signed with either, and refuses one signed with neither', async () => {
    for (const [id, secret, status] of [
      ['evt_platform_1', 'whsec_platform', 200],
      ['evt_connect_1', 'whsec_connect', 200],
      ['evt_other_1', 'whsec_other', 400],
    ] as const) {
      const body = eventBody(id, 'account.updated');
      const response = await two.app.inject({
        method: 'POST',
        url: '/webhooks/payments',
        headers: {
          'content-type': 'application/json',
          'stripe-signature': signEvent(body, secret, Date.now()),
        },
        payload: body,
      });
      assert.equal(response.statusCode, status, `${secret}: ${response.body}`);
    }
  });
});
