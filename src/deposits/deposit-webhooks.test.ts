import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { bookOk, daysFromNow } from '../../test/booking-fixtures.ts';
import { confirmPayment, type DepositBusiness, setupDepositBusiness } from '../../test/deposit-fixtures.ts';
import { useTestApp } from '../../test/helpers.ts';

const ctx = useTestApp({ webhookAllowPrivateUrls: true });
beforeEach(() => {
  ctx.app.clock.now = () => Date.now();
});

const SOON = daysFromNow(2);

/** Subscribes the business to every event (the outbox writes only what some endpoint wants). */
async function subscribe(biz: DepositBusiness) {
  const response = await ctx.app.inject({
    method: 'POST',
    url: '/v1/manage/webhooks',
    headers: biz.tenant.headers,
    payload: { url: 'http://127.0.0.1:1024/hooks', events: ['*'] },
  });
  assert.equal(response.statusCode, 201, response.body);
}

/** The events written for one booking, in the order its endpoint will receive them. */
async function eventsOf(bookingId: string) {
  const rows = await ctx.database.db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
    .select(['e.type', 'e.data'])
    .where('d.subject_key', '=', bookingId)
    .orderBy('d.seq')
    .execute();
  return rows.map((row) => ({ type: row.type, data: row.data as Record<string, unknown> }));
}

describe('deposit events in the webhook outbox', () => {
  it('a paid charge: booking.created, deposit.paid with the deposit, then booking.confirmed', async () => {
    const biz = await setupDepositBusiness(ctx.app, 'charge');
    await subscribe(biz);
    const booking = await bookOk(ctx.app, biz, { booking_date: SOON });
    await confirmPayment(ctx.app, booking.payment_client_secret);
    const events = await eventsOf(booking.id);
    assert.deepEqual(
      events.map((e) => e.type),
      ['booking.created', 'deposit.paid', 'booking.confirmed'],
    );
    assert.deepEqual(events[1]!.data, {
      booking_id: booking.id,
      status: 'paid',
      type: 'charge',
      amount_cents: booking.deposit.amount_cents,
      processor_payment_id: booking.deposit.processor_payment_id,
    });
    assert.equal((events[2]!.data as { status: string }).status, 'confirmed');
  });

  it('a hold captured on a no-show: deposit.paid, booking.confirmed, deposit.collected, booking.no_show', async () => {
    const biz = await setupDepositBusiness(ctx.app, 'authorization_hold');
    await subscribe(biz);
    const booking = await bookOk(ctx.app, biz, { booking_date: SOON });
    await confirmPayment(ctx.app, booking.payment_client_secret);
    // A no-show is marked once its booking has started.
    ctx.app.clock.now = () => Date.parse(booking.starts_at);
    const noShow = await ctx.app.inject({
      method: 'POST',
      url: `/v1/manage/bookings/${booking.id}/no-show`,
      headers: biz.tenant.headers,
    });
    assert.equal(noShow.statusCode, 200, noShow.body);
    assert.deepEqual(
      (await eventsOf(booking.id)).map((e) => e.type),
      ['booking.created', 'deposit.paid', 'booking.confirmed', 'deposit.collected', 'booking.no_show'],
    );
  });

  it('a deposit unpaid at its deadline: deposit.failed, then booking.cancelled', async () => {
    const biz = await setupDepositBusiness(ctx.app, 'charge');
    await subscribe(biz);
    const booking = await bookOk(ctx.app, biz, { booking_date: SOON });
    ctx.app.clock.now = () => Date.now() + 31 * 60_000;
    await ctx.app.jobs.runAll();
    const events = await eventsOf(booking.id);
    assert.deepEqual(
      events.map((e) => e.type),
      ['booking.created', 'deposit.failed', 'booking.cancelled'],
    );
    assert.equal((events[2]!.data as { status: string }).status, 'cancelled');
  });
});
