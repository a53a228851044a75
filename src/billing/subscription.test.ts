import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { bookOk, daysFromNow, postBooking, setupBookable } from '../../test/booking-fixtures.ts';
import { connectPaymentAccount, setupDepositBusiness } from '../../test/deposit-fixtures.ts';
import {
  bearer,
  createTenant,
  dashboardToken,
  itChecksAuth,
  RACE,
  type Tenant,
  useTestApp,
} from '../../test/helpers.ts';
import { PLANS, quotaMonth } from './plans.rules.ts';
import { setSubscription } from './subscription.service.ts';

const ctx = useTestApp();
beforeEach(() => {
  ctx.app.clock.now = () => Date.now();
});

const DAY_MS = 86_400_000;

const subscription = (headers: Record<string, string>) =>
  ctx.app.inject({ method: 'GET', url: '/v1/manage/subscription', headers });

/** Pretends the developer already booked `count` times this month. */
const usedThisMonth = (tenant: Tenant, count: number) =>
  ctx.database.db
    .insertInto('booking_usage')
    .values({ developer_id: tenant.developer.id, month: quotaMonth(ctx.app.clock.now()), bookings: count })
    .onConflict((oc) => oc.columns(['developer_id', 'month', 'shard']).doUpdateSet({ bookings: count }))
    .execute();

/** The developer's bookings counted in the month of `at`. */
async function counted(tenant: Tenant, at = Date.now()): Promise<number> {
  const row = await ctx.database.db
    .selectFrom('booking_usage')
    .select((eb) => eb.fn.sum<number>('bookings').as('n'))
    .where('developer_id', '=', tenant.developer.id)
    .where('month', '=', quotaMonth(at))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Pretends the sandbox business already took `count` bookings this month. */
const sandboxUsedThisMonth = (businessId: string, count: number) =>
  ctx.database.db
    .insertInto('sandbox_usage')
    .values({ business_id: businessId, month: quotaMonth(ctx.app.clock.now()), bookings: count })
    .onConflict((oc) => oc.columns(['business_id', 'month']).doUpdateSet({ bookings: count }))
    .execute();

const bookingsStored = async (businessId: string) =>
  Number(
    (
      await ctx.database.db
        .selectFrom('bookings')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('business_id', '=', businessId)
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('GET /v1/manage/subscription', () => {
  describe('200', () => {
    it('shows a new account in a 14-day trial with premium features and quota', async () => {
      const tenant = await createTenant(ctx.app);
      const response = await subscription(tenant.headers);
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.equal(body.subscription_status, 'trial');
      assert.equal(body.subscription_plan_id, 'trial');
      assert.equal(body.trial_days_remaining, 14);
      const trialLeft = Date.parse(body.trial_ends_at) - Date.now();
      assert.ok(trialLeft > 13.9 * DAY_MS && trialLeft <= 14 * DAY_MS, body.trial_ends_at);
      assert.equal(body.current_period_ends_at, null);
      assert.equal(body.resource_count, 0);
      assert.equal(body.deposits_enabled, false);
      assert.equal(body.is_sandbox, false);
      assert.equal(body.bookings_this_month, 0);
      assert.equal(body.bookings_quota, PLANS.premium.monthlyBookings);
      assert.deepEqual(body.features, { dynamic_mode: true, authorization_holds: true, calendar_sync: true });
    });

    it("counts the month's bookings across the developer's live businesses, and its resources", async () => {
      const biz = await setupBookable(ctx.app);
      await bookOk(ctx.app, biz);
      await bookOk(ctx.app, biz, { start_time: '13:00' });
      await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/bookings/staff',
        headers: biz.tenant.headers,
        payload: {
          date: daysFromNow(7),
          time: '14:10',
          first_name: 'W',
          last_name: 'Alk',
          phone: '+4930555000',
        },
      });
      const body = (await subscription(biz.tenant.headers)).json();
      assert.equal(body.bookings_this_month, 3);
      assert.equal(body.resource_count, 3);
    });

    it('falls to the free plan once the trial is over, keeping what the business has', async () => {
      const biz = await setupBookable(ctx.app);
      await bookOk(ctx.app, biz);
      const trialEnd = Date.parse((await subscription(biz.tenant.headers)).json().trial_ends_at);
      ctx.app.clock.now = () => trialEnd + 1;
      const body = (await subscription(biz.tenant.headers)).json();
      assert.equal(body.subscription_status, 'active');
      assert.equal(body.subscription_plan_id, 'free');
      assert.equal(body.trial_days_remaining, 0);
      assert.equal(body.bookings_quota, PLANS.free.monthlyBookings);
      assert.equal(body.resource_count, 3);
      assert.deepEqual(body.features, {
        dynamic_mode: false,
        authorization_holds: false,
        calendar_sync: false,
      });
    });

    it('shows the plan a state change set, and a cancelled plan until its period ends', async () => {
      const tenant = await createTenant(ctx.app);
      const periodEnd = new Date(Date.now() + 10 * DAY_MS);
      await setSubscription(ctx.app.db, ctx.app.changes, tenant.developer.id, {
        status: 'cancelled',
        planId: 'pro',
        currentPeriodEndsAt: periodEnd,
      });
      let body = (await subscription(tenant.headers)).json();
      assert.equal(body.subscription_status, 'cancelled');
      assert.equal(body.subscription_plan_id, 'pro');
      assert.equal(body.current_period_ends_at, periodEnd.toISOString());
      assert.equal(body.bookings_quota, PLANS.pro.monthlyBookings);
      ctx.app.clock.now = () => periodEnd.getTime();
      body = (await subscription(tenant.headers)).json();
      assert.equal(body.subscription_plan_id, 'free');
      assert.equal(body.bookings_quota, PLANS.free.monthlyBookings);
    });

    it('shows a sandbox business with every feature and no quota, its bookings not counted', async () => {
      const biz = await setupBookable(ctx.app);
      await setSubscription(ctx.app.db, ctx.app.changes, biz.tenant.developer.id, {
        status: 'active',
        planId: 'free',
      });
      const created = await ctx.app.inject({
        method: 'POST',
        url: '/v1/developer/businesses',
        headers: bearer(biz.tenant.developer.token),
        payload: { name: 'Sandbox', is_dev: true },
      });
      const sandboxHeaders = bearer(created.json().api_key);
      const body = (await subscription(sandboxHeaders)).json();
      assert.equal(body.is_sandbox, true);
      assert.equal(body.bookings_quota, null);
      assert.deepEqual(body.features, { dynamic_mode: true, authorization_holds: true, calendar_sync: true });
      await bookOk(ctx.app, biz);
      assert.equal((await subscription(sandboxHeaders)).json().bookings_this_month, 1);
    });

    it('answers while the subscription is past due, to keys, owners and staff', async () => {
      const tenant = await createTenant(ctx.app);
      const staff = bearer(await dashboardToken(ctx.app, tenant, 'staff_member'));
      await setSubscription(ctx.app.db, ctx.app.changes, tenant.developer.id, {
        status: 'past_due',
        planId: 'starter',
      });
      for (const headers of [
        tenant.headers,
        staff,
        { ...bearer(tenant.developer.token), 'x-business-id': tenant.businessId },
      ]) {
        const response = await subscription(headers);
        assert.equal(response.statusCode, 200, response.body);
        assert.equal(response.json().subscription_status, 'past_due');
      }
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, {
      route: () => ({
        method: 'GET',
        url: '/v1/manage/subscription',
        scope: 'read',
        staff: true,
        openWhilePastDue: true,
      }),
    });
  });
});

describe('past due', () => {
  describe('402', () => {
    it("refuses every call made with the developer's credentials, public reads with a key included", async () => {
      const biz = await setupBookable(ctx.app);
      const tenant = biz.tenant;
      const owner = bearer(await dashboardToken(ctx.app, tenant, 'business_owner'));
      await setSubscription(ctx.app.db, ctx.app.changes, tenant.developer.id, {
        status: 'past_due',
        planId: 'starter',
      });
      const developer = bearer(tenant.developer.token);
      const calls = [
        { method: 'GET', url: '/v1/manage/resources', headers: tenant.headers },
        { method: 'GET', url: '/v1/manage/resources', headers: owner },
        { method: 'GET', url: '/v1/developer/businesses', headers: developer },
        { method: 'POST', url: '/v1/developer/businesses', headers: developer, payload: { name: 'More' } },
        {
          method: 'GET',
          url: `/v1/availability/${tenant.businessId}?date=${daysFromNow(7)}`,
          headers: tenant.headers,
        },
        { method: 'GET', url: `/v1/public/business/${tenant.slug}`, headers: tenant.headers },
      ] as const;
      for (const call of calls) {
        const response = await ctx.app.inject({
          ...call,
          payload: 'payload' in call ? call.payload : undefined,
        });
        assert.equal(response.statusCode, 402, `${call.method} ${call.url}: ${response.body}`);
        assert.equal(response.json().error.code, 'payment_required');
      }
      const booking = await postBooking(ctx.app, biz);
      assert.equal(booking.statusCode, 402);
      assert.equal(await bookingsStored(tenant.businessId), 0);
    });

    it('leaves public reads without a credential open, and lifts at once when the debt is paid', async () => {
      const biz = await setupBookable(ctx.app);
      const tenant = biz.tenant;
      await setSubscription(ctx.app.db, ctx.app.changes, tenant.developer.id, {
        status: 'past_due',
        planId: 'starter',
      });
      const publicDay = await ctx.app.inject({
        method: 'GET',
        url: `/v1/availability/${tenant.businessId}?date=${daysFromNow(7)}`,
      });
      assert.equal(publicDay.statusCode, 200);
      assert.equal((await postBooking(ctx.app, biz)).statusCode, 402);
      await setSubscription(ctx.app.db, ctx.app.changes, tenant.developer.id, {
        status: 'active',
        planId: 'starter',
      });
      assert.equal((await postBooking(ctx.app, biz)).statusCode, 201);
    });
  });
});

describe('monthly booking quota', () => {
  describe('402', () => {
    it('takes the last booking of the quota and refuses the next, on every booking route', async () => {
      const biz = await setupBookable(ctx.app);
      await setSubscription(ctx.app.db, ctx.app.changes, biz.tenant.developer.id, {
        status: 'active',
        planId: 'free',
      });
      await usedThisMonth(biz.tenant, PLANS.free.monthlyBookings - 1);
      await bookOk(ctx.app, biz);
      const refused = await postBooking(ctx.app, biz, { start_time: '13:00' });
      assert.equal(refused.statusCode, 402, refused.body);
      assert.equal(refused.json().error.code, 'plan_limit_reached');
      const staff = await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/bookings/staff',
        headers: biz.tenant.headers,
        payload: {
          date: daysFromNow(7),
          time: '14:00',
          first_name: 'W',
          last_name: 'Alk',
          phone: '+4930555000',
        },
      });
      assert.equal(staff.statusCode, 402, staff.body);
      assert.equal(staff.json().error.code, 'plan_limit_reached');
      assert.equal(await bookingsStored(biz.tenant.businessId), 1);
      assert.equal(
        (await subscription(biz.tenant.headers)).json().bookings_this_month,
        PLANS.free.monthlyBookings,
      );
    });

    it('counts afresh each calendar month', async () => {
      const biz = await setupBookable(ctx.app, { settings: { booking_window_days: 90 } });
      await setSubscription(ctx.app.db, ctx.app.changes, biz.tenant.developer.id, {
        status: 'active',
        planId: 'free',
      });
      await usedThisMonth(biz.tenant, PLANS.free.monthlyBookings);
      assert.equal((await postBooking(ctx.app, biz)).statusCode, 402);
      const now = Date.now();
      const nextMonth = Date.parse(`${quotaMonth(now + 32 * DAY_MS)}T00:00:00Z`);
      ctx.app.clock.now = () => nextMonth;
      const booked = await postBooking(ctx.app, biz, { booking_date: daysFromNow(40) });
      assert.equal(booked.statusCode, 201, booked.body);
    });

    it('lets exactly one of many simultaneous bookings take the last one of the quota', RACE, async () => {
      const biz = await setupBookable(ctx.app);
      await setSubscription(ctx.app.db, ctx.app.changes, biz.tenant.developer.id, {
        status: 'active',
        planId: 'starter',
      });
      await usedThisMonth(biz.tenant, PLANS.starter.monthlyBookings - 1);
      const times = ['09:00', '10:00', '11:00', '12:00', '13:00', '14:00', '15:00', '16:00'];
      const answers = await Promise.all(times.map((start_time) => postBooking(ctx.app, biz, { start_time })));
      const statuses = answers.map((a) => a.statusCode).sort();
      assert.deepEqual(
        statuses,
        [201, ...times.slice(1).map(() => 402)],
        answers.map((a) => a.body).join('\n'),
      );
      assert.equal(await bookingsStored(biz.tenant.businessId), 1);
    });

    it("caps a sandbox business at 100 bookings a month, whatever its developer's quota", async () => {
      const biz = await setupBookable(ctx.app, { sandbox: true });
      const tenant = biz.tenant;
      await setSubscription(ctx.app.db, ctx.app.changes, tenant.developer.id, {
        status: 'active',
        planId: 'free',
      });
      await usedThisMonth(tenant, PLANS.free.monthlyBookings);
      await sandboxUsedThisMonth(tenant.businessId, 99);
      const booked = await postBooking(ctx.app, biz);
      assert.equal(booked.statusCode, 201, booked.body);
      const refused = await postBooking(ctx.app, biz, { start_time: '13:00' });
      assert.equal(refused.statusCode, 402, refused.body);
      assert.equal(refused.json().error.code, 'plan_limit_reached');
      assert.match(refused.json().error.message, /100 bookings a month/);
      const staff = await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/bookings/staff',
        headers: bearer(await dashboardToken(ctx.app, tenant, 'business_owner')),
        payload: {
          date: daysFromNow(7),
          time: '14:00',
          first_name: 'W',
          last_name: 'Alk',
          phone: '+4930555000',
        },
      });
      assert.equal(staff.statusCode, 402, staff.body);
      assert.equal(await bookingsStored(tenant.businessId), 1);
      assert.equal(await counted(tenant), PLANS.free.monthlyBookings);
    });

    it(
      "lets exactly one of many simultaneous bookings take a sandbox's last one of the month",
      RACE,
      async () => {
        const biz = await setupBookable(ctx.app, { sandbox: true });
        await sandboxUsedThisMonth(biz.tenant.businessId, 99);
        const times = ['09:00', '10:00', '11:00', '12:00', '13:00', '14:00', '15:00', '16:00'];
        const answers = await Promise.all(
          times.map((start_time) => postBooking(ctx.app, biz, { start_time })),
        );
        const statuses = answers.map((a) => a.statusCode).sort();
        assert.deepEqual(
          statuses,
          [201, ...times.slice(1).map(() => 402)],
          answers.map((a) => a.body).join('\n'),
        );
        assert.equal(await bookingsStored(biz.tenant.businessId), 1);
      },
    );
  });

  describe('201', () => {
    it("never refuses a dashboard user's booking at the host stand, and counts it", async () => {
      const biz = await setupBookable(ctx.app);
      const { tenant } = biz;
      await setSubscription(ctx.app.db, ctx.app.changes, tenant.developer.id, {
        status: 'active',
        planId: 'free',
      });
      await usedThisMonth(tenant, PLANS.free.monthlyBookings);
      let hour = 8;
      for (const role of ['business_owner', 'staff_member'] as const) {
        const staff = await ctx.app.inject({
          method: 'POST',
          url: '/v1/manage/bookings/staff',
          headers: bearer(await dashboardToken(ctx.app, tenant, role)),
          payload: {
            date: daysFromNow(7),
            time: `${String(++hour).padStart(2, '0')}:00`,
            first_name: 'W',
            last_name: 'Alk',
            phone: '+4930555000',
          },
        });
        assert.equal(staff.statusCode, 201, `${role}: ${staff.body}`);
      }
      assert.equal(await counted(tenant), PLANS.free.monthlyBookings + 2);
      const online = await postBooking(ctx.app, biz, { start_time: '13:00' });
      assert.equal(online.statusCode, 402, online.body);
      assert.equal(await bookingsStored(tenant.businessId), 2);
    });
  });
});

describe('a booking that never became confirmed', () => {
  const runJobs = () => ctx.app.jobs.runAll();
  const statusOf = async (businessId: string, bookingId: string) =>
    (
      await ctx.database.db
        .selectFrom('bookings')
        .select('status')
        .where('business_id', '=', businessId)
        .where('id', '=', bookingId)
        .executeTakeFirstOrThrow()
    ).status;

  it("gives its month's unit back, once, when its unpaid deposit is cancelled by the service", async () => {
    const biz = await setupDepositBusiness(ctx.app, 'charge');
    const { tenant } = biz;
    await setSubscription(ctx.app.db, ctx.app.changes, tenant.developer.id, {
      status: 'active',
      planId: 'free',
    });
    await usedThisMonth(tenant, 5);
    const bookedAt = Date.now();
    const booked = await postBooking(ctx.app, biz);
    assert.equal(booked.statusCode, 201, booked.body);
    const { id } = booked.json().booking;
    assert.equal(booked.json().booking.status, 'pending');
    assert.equal(await counted(tenant, bookedAt), 6);
    ctx.app.clock.now = () => bookedAt + 31 * 60_000;
    await runJobs();
    assert.equal(await statusOf(tenant.businessId, id), 'cancelled');
    assert.equal(await counted(tenant, bookedAt), 5);
    // Run again, the job gives nothing more back.
    await runJobs();
    assert.equal(await counted(tenant, bookedAt), 5);
  });

  it('gives its unit back, once, when the guest or the staff cancel it before its deposit is paid', async () => {
    const biz = await setupDepositBusiness(ctx.app, 'charge');
    const { tenant } = biz;
    await setSubscription(ctx.app.db, ctx.app.changes, tenant.developer.id, {
      status: 'active',
      planId: 'free',
    });
    await usedThisMonth(tenant, 5);
    const bookedAt = Date.now();
    const byGuest = await postBooking(ctx.app, biz, { email: 'eve@example.com' });
    const byStaff = await postBooking(ctx.app, biz, { start_time: '13:00' });
    assert.equal(byGuest.statusCode, 201, byGuest.body);
    assert.equal(byStaff.statusCode, 201, byStaff.body);
    assert.equal(await counted(tenant, bookedAt), 7);
    const guestCancel = await ctx.app.inject({
      method: 'POST',
      url: `/v1/public/bookings/${byGuest.json().booking.confirmation_code}/cancel`,
      payload: { email: 'eve@example.com' },
    });
    assert.equal(guestCancel.statusCode, 200, guestCancel.body);
    const staffCancel = await ctx.app.inject({
      method: 'PATCH',
      url: `/v1/manage/bookings/${byStaff.json().booking.id}`,
      headers: tenant.headers,
      payload: { status: 'cancelled' },
    });
    assert.equal(staffCancel.statusCode, 200, staffCancel.body);
    assert.equal(await counted(tenant, bookedAt), 5);
    // The deposits' deadlines pass later: nothing more is given back.
    ctx.app.clock.now = () => bookedAt + 31 * 60_000;
    await runJobs();
    assert.equal(await counted(tenant, bookedAt), 5);
  });

  it('keeps the unit of a booking cancelled after it was confirmed', async () => {
    const biz = await setupDepositBusiness(ctx.app, 'charge');
    const { tenant } = biz;
    await usedThisMonth(tenant, 5);
    const bookedAt = Date.now();
    const booked = await postBooking(ctx.app, biz);
    assert.equal(booked.statusCode, 201, booked.body);
    const url = `/v1/manage/bookings/${booked.json().booking.id}`;
    for (const status of ['confirmed', 'cancelled']) {
      const moved = await ctx.app.inject({
        method: 'PATCH',
        url,
        headers: tenant.headers,
        payload: { status },
      });
      assert.equal(moved.statusCode, 200, moved.body);
    }
    assert.equal(await counted(tenant, bookedAt), 6);
  });

  it("gives its unit back when a staff deposit's payment link expires unpaid", async () => {
    const biz = await setupBookable(ctx.app);
    const { tenant } = biz;
    await connectPaymentAccount(ctx.app, tenant.businessId);
    await usedThisMonth(tenant, 5);
    const bookedAt = Date.now();
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/v1/manage/bookings/staff-deposit',
      headers: tenant.headers,
      payload: {
        date: daysFromNow(7),
        time: '14:00',
        capacity: 2,
        first_name: 'W',
        last_name: 'Alk',
        phone: '+4930555000',
        email: 'walk@example.com',
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(await counted(tenant, bookedAt), 6);
    ctx.app.clock.now = () => bookedAt + 2 * 3_600_000 + 60_000;
    await runJobs();
    assert.equal(await statusOf(tenant.businessId, created.json().booking.id), 'cancelled');
    assert.equal(await counted(tenant, bookedAt), 5);
  });

  it('gives a sandbox business its unit back too', async () => {
    const biz = await setupDepositBusiness(ctx.app, 'charge', { sandbox: true });
    await sandboxUsedThisMonth(biz.tenant.businessId, 99);
    const bookedAt = Date.now();
    const booked = await postBooking(ctx.app, biz);
    assert.equal(booked.statusCode, 201, booked.body);
    assert.equal((await postBooking(ctx.app, biz, { start_time: '13:00' })).statusCode, 402);
    ctx.app.clock.now = () => bookedAt + 31 * 60_000;
    await runJobs();
    ctx.app.clock.now = () => Date.now();
    const again = await postBooking(ctx.app, biz, { start_time: '14:00' });
    assert.equal(again.statusCode, 201, again.body);
  });
});

describe('features by plan in settings', () => {
  const patch = (tenant: Tenant, payload: object) =>
    ctx.app.inject({ method: 'PATCH', url: '/v1/manage/settings', headers: tenant.headers, payload });

  describe('402', () => {
    it('refuses dynamic mode below premium and authorization holds below pro, changing nothing', async () => {
      const tenant = await createTenant(ctx.app);
      await connectPaymentAccount(ctx.app, tenant.businessId);
      for (const [planId, dynamic, holds] of [
        ['free', 402, 402],
        ['starter', 402, 402],
        ['pro', 402, 200],
        ['premium', 200, 200],
      ] as const) {
        await setSubscription(ctx.app.db, ctx.app.changes, tenant.developer.id, { status: 'active', planId });
        await patch(tenant, { booking_mode: 'scheduled', deposit_type: 'none' });
        const mode = await patch(tenant, { booking_mode: 'dynamic', buffer_minutes: 5 });
        assert.equal(mode.statusCode, dynamic, `${planId} dynamic: ${mode.body}`);
        const hold = await patch(tenant, { deposit_type: 'authorization_hold' });
        assert.equal(hold.statusCode, holds, `${planId} hold: ${hold.body}`);
        if (dynamic === 402) {
          assert.equal(mode.json().error.code, 'plan_upgrade_required');
          const settings = await ctx.app.inject({
            method: 'GET',
            url: '/v1/manage/settings',
            headers: tenant.headers,
          });
          assert.equal(settings.json().booking_mode, 'scheduled');
          assert.equal(settings.json().buffer_minutes, 0);
        }
      }
    });

    it('lets a business keep a feature its plan lost, and change its other settings', async () => {
      const tenant = await createTenant(ctx.app);
      assert.equal((await patch(tenant, { booking_mode: 'dynamic' })).statusCode, 200);
      await setSubscription(ctx.app.db, ctx.app.changes, tenant.developer.id, {
        status: 'active',
        planId: 'free',
      });
      const response = await patch(tenant, { booking_mode: 'dynamic', buffer_minutes: 10 });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal((await patch(tenant, { booking_mode: 'scheduled' })).statusCode, 200);
      assert.equal((await patch(tenant, { booking_mode: 'dynamic' })).statusCode, 402);
    });

    it('refuses them once a trial or a cancelled period is over', async () => {
      const trial = await createTenant(ctx.app);
      const trialEnd = Date.parse((await subscription(trial.headers)).json().trial_ends_at);
      const cancelled = await createTenant(ctx.app);
      for (const tenant of [trial, cancelled]) await connectPaymentAccount(ctx.app, tenant.businessId);
      await setSubscription(ctx.app.db, ctx.app.changes, cancelled.developer.id, {
        status: 'cancelled',
        planId: 'premium',
        currentPeriodEndsAt: new Date(trialEnd),
      });
      for (const tenant of [trial, cancelled]) {
        ctx.app.clock.now = () => trialEnd - 1;
        assert.equal((await patch(tenant, { deposit_type: 'authorization_hold' })).statusCode, 200);
        ctx.app.clock.now = () => trialEnd;
        const response = await patch(tenant, { booking_mode: 'dynamic' });
        assert.equal(response.statusCode, 402, response.body);
        assert.equal(response.json().error.code, 'plan_upgrade_required');
      }
    });

    it('gives a sandbox business every feature on any plan', async () => {
      const tenant = await createTenant(ctx.app, { is_dev: true });
      await setSubscription(ctx.app.db, ctx.app.changes, tenant.developer.id, {
        status: 'active',
        planId: 'free',
      });
      const response = await patch(tenant, { booking_mode: 'dynamic', deposit_type: 'authorization_hold' });
      assert.equal(response.statusCode, 200, response.body);
    });
  });
});
