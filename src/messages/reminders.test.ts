import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import {
  type BookableBusiness,
  bookOk,
  daysFromNow,
  guest,
  nextCentralEuropeanClockChange,
  send,
  setupBookable,
  withoutGuestProfile,
} from '../../test/booking-fixtures.ts';
import { useTestApp } from '../../test/helpers.ts';
import { reminderJob } from './reminders.jobs.ts';
import { writeDueReminders } from './reminders.queries.ts';

const ctx = useTestApp();
afterEach(() => {
  ctx.app.clock.now = () => Date.now();
});

const HOUR = 3_600_000;

/** Runs the reminder job with the app's clock at `at`. */
async function remindAt(at: number): Promise<number> {
  ctx.app.clock.now = () => at;
  return reminderJob(ctx.app.db, ctx.app.clock).run();
}

const reminders = () =>
  ctx.app.db
    .selectFrom('message_outbox')
    .select(['channel', 'to_address', 'booking_id', 'payload', 'business_id'])
    .where('type', '=', 'booking_reminder')
    .orderBy('channel')
    .execute();

/** The booking as the API answers it, without the guest's profile the host stand alone reads beside it. */
async function bookingView(biz: BookableBusiness, id: string) {
  const response = await ctx.app.inject({
    method: 'GET',
    url: `/v1/manage/bookings/${id}`,
    headers: biz.tenant.headers,
  });
  assert.equal(response.statusCode, 200, response.body);
  return withoutGuestProfile(response.json());
}

async function patchBooking(biz: BookableBusiness, id: string, payload: Record<string, unknown>) {
  const response = await ctx.app.inject({
    method: 'PATCH',
    url: `/v1/manage/bookings/${id}`,
    headers: biz.tenant.headers,
    payload,
  });
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

describe('reminder job', () => {
  it('writes an email reminder at the moment reminder_hours_before falls, once, with the booking as the API answers it', async () => {
    const biz = await setupBookable(ctx.app);
    const booking = await bookOk(ctx.app, biz, guest({ email: 'ada@example.com' }));
    const moment = Date.parse(booking.starts_at) - 24 * HOUR;
    assert.equal(await remindAt(moment - 1), 0);
    assert.deepEqual(await reminders(), []);
    assert.equal(await remindAt(moment), 1);
    const [row, ...more] = await reminders();
    assert.deepEqual(more, []);
    assert.equal(row!.channel, 'email');
    assert.equal(row!.to_address, 'ada@example.com');
    assert.equal(row!.business_id, biz.tenant.businessId);
    assert.equal(row!.booking_id, booking.id);
    assert.deepEqual(row!.payload, await bookingView(biz, booking.id));
    assert.equal(await remindAt(moment + HOUR), 0);
    assert.equal((await reminders()).length, 1);
  });

  it('texts the phone when SMS is on, and emails nobody when guest emails are off', async () => {
    const biz = await setupBookable(ctx.app, {
      settings: { sms_enabled: true, guest_emails_enabled: false },
    });
    const booking = await bookOk(ctx.app, biz, guest({ phone: '+49 30 1234567' }));
    await remindAt(Date.parse(booking.starts_at) - HOUR);
    assert.deepEqual(
      (await reminders()).map((row) => [row.channel, row.to_address]),
      [['sms', '+49 30 1234567']],
    );
  });

  it('writes both channels when both are on, each once', async () => {
    const biz = await setupBookable(ctx.app, { settings: { sms_enabled: true } });
    const booking = await bookOk(ctx.app, biz);
    const at = Date.parse(booking.starts_at) - 2 * HOUR;
    assert.equal(await remindAt(at), 2);
    assert.equal(await remindAt(at), 0);
    assert.deepEqual(
      (await reminders()).map((row) => row.channel),
      ['email', 'sms'],
    );
  });

  it('reminds an erased guest on no channel: their booking stays, their email and phone are gone', async () => {
    const biz = await setupBookable(ctx.app, { settings: { sms_enabled: true } });
    const booking = await bookOk(ctx.app, biz);
    await send(ctx.app, biz.tenant, 'POST', `/v1/manage/customers/${booking.customer_id}/erase`);
    assert.equal(await remindAt(Date.parse(booking.starts_at) - 2 * HOUR), 0);
    assert.deepEqual(await reminders(), []);
  });

  it('counts absolute hours across a clock change: a Sunday booking after the change is reminded at starts_at - 24 h', async () => {
    const biz = await setupBookable(ctx.app, {
      settings: { timezone: 'Europe/Berlin', booking_window_days: 365 },
      open: '09:00',
      close: '22:00',
    });
    const { date, utcOffsetHours } = nextCentralEuropeanClockChange();
    const booking = await bookOk(ctx.app, biz, { booking_date: date, start_time: '19:00' });
    assert.equal(
      booking.starts_at,
      new Date(Date.parse(`${date}T19:00:00Z`) - utcOffsetHours * HOUR).toISOString(),
    );
    // Reading "24 hours before" as the same wall time the day before would be an hour off either way.
    const moment = Date.parse(booking.starts_at) - 24 * HOUR;
    assert.equal(await remindAt(moment - 1000), 0);
    assert.equal(await remindAt(moment), 1);
  });

  it('never reminds a booking made after its moment, a cancelled booking, a started one, or with reminders off', async () => {
    const late = await setupBookable(ctx.app, { settings: { reminder_hours_before: 48 } });
    const lateBooking = await bookOk(ctx.app, late, { booking_date: daysFromNow(1) });
    assert.equal(await remindAt(Date.parse(lateBooking.starts_at) - HOUR), 0);

    const off = await setupBookable(ctx.app, { settings: { reminder_hours_before: 0 } });
    const offBooking = await bookOk(ctx.app, off);
    assert.equal(await remindAt(Date.parse(offBooking.starts_at) - HOUR), 0);

    const biz = await setupBookable(ctx.app);
    const cancelled = await bookOk(ctx.app, biz);
    await patchBooking(biz, cancelled.id, { status: 'cancelled' });
    assert.equal(await remindAt(Date.parse(cancelled.starts_at) - HOUR), 0);

    const started = await bookOk(ctx.app, biz, { start_time: '14:00' });
    assert.equal(await remindAt(Date.parse(started.starts_at)), 0);
    assert.deepEqual(await reminders(), []);
  });

  it('reminds a booking moved before its reminder once, for its new time, and not again when moved after it', async () => {
    const biz = await setupBookable(ctx.app);
    const booking = await bookOk(ctx.app, biz);
    const oldMoment = Date.parse(booking.starts_at) - 24 * HOUR;
    const moved = await patchBooking(biz, booking.id, { booking_date: daysFromNow(8) });
    assert.equal(await remindAt(oldMoment), 0);
    const newMoment = Date.parse(moved.starts_at) - 24 * HOUR;
    assert.equal(await remindAt(newMoment), 1);
    const [row] = await reminders();
    assert.equal((row!.payload as { booking_date: string }).booking_date, daysFromNow(8));

    const again = await patchBooking(biz, booking.id, { booking_date: daysFromNow(9), start_time: '13:00' });
    assert.equal(await remindAt(Date.parse(again.starts_at) - 24 * HOUR), 0);
    assert.equal((await reminders()).length, 1);
  });

  it('passes over reminded bookings, so a bounded batch never stalls on them', async () => {
    const biz = await setupBookable(ctx.app);
    const first = await bookOk(ctx.app, biz, { start_time: '10:00' });
    const second = await bookOk(ctx.app, biz, { start_time: '15:00' });
    const at = new Date(Date.parse(first.starts_at) - HOUR);
    assert.equal(await writeDueReminders(ctx.app.db, at, 1), 1);
    assert.equal(await writeDueReminders(ctx.app.db, at, 1), 1);
    assert.equal(await writeDueReminders(ctx.app.db, at, 1), 0);
    assert.deepEqual((await reminders()).map((row) => row.booking_id).sort(), [first.id, second.id].sort());
  });
});
