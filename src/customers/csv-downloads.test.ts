import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BOOKING_DAY, bookOk, guest, send, setupBookable } from '../../test/booking-fixtures.ts';
import { itChecksAuth, useTestApp } from '../../test/helpers.ts';

const ctx = useTestApp();

const BOM = '\uFEFF';

const download = (headers: Record<string, string>, url: string) =>
  ctx.app.inject({ method: 'GET', url, headers });

describe('GET /v1/manage/customers.csv', () => {
  it('is RFC 4180 with a BOM, every customer the list shows, and a formula comes out inert', async () => {
    const biz = await setupBookable(ctx.app);
    const hostile = await bookOk(ctx.app, biz, {
      ...guest({ first_name: '=HYPERLINK("http://evil.example","click")', last_name: 'Doe, "Jr"' }),
      start_time: '10:00',
    });
    await send(ctx.app, biz.tenant, 'PATCH', `/v1/manage/customers/${hostile.customer_id}`, {
      tags: ['vip', 'regular'],
      allergies: '@peanuts',
    });
    await bookOk(ctx.app, biz, { ...guest({ last_name: 'Plain' }), start_time: '12:00' });
    const response = await download(biz.tenant.headers, '/v1/manage/customers.csv');
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['content-type'], 'text/csv; charset=utf-8');
    assert.match(String(response.headers['content-disposition']), /attachment; filename="customers.csv"/);
    assert.ok(response.body.startsWith(BOM));
    const lines = response.body.slice(1).split('\r\n');
    assert.equal(lines.at(-1), '', 'every record ends with CRLF');
    assert.match(lines[0]!, /^id,first_name,last_name,phone,email,tags,allergies,staff_notes,/);
    const doe = lines.find((line) => line.includes('Jr'))!;
    assert.ok(doe.includes(`"'=HYPERLINK(""http://evil.example"",""click"")"`), doe);
    assert.ok(doe.includes('"Doe, ""Jr"""'), doe);
    assert.ok(doe.includes(`"'@peanuts"`), doe);
    assert.ok(doe.includes('vip; regular'), doe);
    assert.equal(lines.length, 4);

    const tagged = await download(biz.tenant.headers, '/v1/manage/customers.csv?tag=vip');
    assert.equal(tagged.body.slice(1).split('\r\n').length, 3);
  });

  it('answers a refused search as an error, not a download', async () => {
    const biz = await setupBookable(ctx.app);
    const response = await download(biz.tenant.headers, '/v1/manage/customers.csv?search=%20x%20');
    assert.equal(response.statusCode, 422, response.body);
    assert.equal(response.json().error.code, 'validation_error');
  });

  describe('auth', () => {
    itChecksAuth(
      () => ctx,
      async () => {
        const biz = await setupBookable(ctx.app);
        return {
          tenant: biz.tenant,
          route: { method: 'GET', url: '/v1/manage/customers.csv', scope: 'read', staff: true },
        };
      },
    );
  });
});

describe('GET /v1/manage/bookings.csv', () => {
  it('holds the bookings the list holds with the same filters, in its order', async () => {
    const biz = await setupBookable(ctx.app, {
      resources: Array.from({ length: 8 }, (_, i) => ({ name: `T${i}`, capacity_min: 1, capacity_max: 4 })),
    });
    const times = ['10:00', '12:00'];
    for (const time of times) {
      for (let i = 0; i < 8; i++) await bookOk(ctx.app, biz, { start_time: time });
    }
    const response = await download(
      biz.tenant.headers,
      `/v1/manage/bookings.csv?booking_date=${BOOKING_DAY}`,
    );
    assert.equal(response.statusCode, 200, response.body);
    const lines = response.body.slice(1).split('\r\n');
    assert.match(
      lines[0]!,
      /^booking_date,start_time,end_time,party_size,status,confirmation_code,resource,/,
    );
    assert.equal(lines.length, 16 + 2);
    const listed = await send(
      ctx.app,
      biz.tenant,
      'GET',
      `/v1/manage/bookings?booking_date=${BOOKING_DAY}&limit=200`,
    );
    assert.deepEqual(
      lines.slice(1, -1).map((line) => line.split(',')[5]),
      listed.items.map((booking: { confirmation_code: string }) => booking.confirmation_code),
    );
    const none = await download(biz.tenant.headers, '/v1/manage/bookings.csv?status=no_show');
    assert.equal(
      none.body,
      `${BOM}booking_date,start_time,end_time,party_size,status,confirmation_code,resource,first_name,last_name,phone,email,customer_notes,staff_notes,allergies,tags,source,customer_id,created_at\r\n`,
    );
  });

  describe('auth', () => {
    itChecksAuth(
      () => ctx,
      async () => {
        const biz = await setupBookable(ctx.app);
        return {
          tenant: biz.tenant,
          route: { method: 'GET', url: '/v1/manage/bookings.csv', scope: 'read', staff: true },
        };
      },
    );
  });
});
