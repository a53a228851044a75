import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { sql } from 'kysely';
import { BOOKING_DAY, bookOk, guest, send, setupBookable } from '../../test/booking-fixtures.ts';
import { ENGINE, itChecksAuth, useTestApp } from '../../test/helpers.ts';

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

  it('streams 100,000 bookings without holding them: the process holds less than 50 MB more', {
    skip: ENGINE === 'pglite' && 'loads 100,000 rows in one statement, a PostgreSQL test',
  }, async () => {
    const biz = await setupBookable(ctx.app);
    const { customer_id } = await bookOk(ctx.app, biz, { start_time: '10:00' });
    // Loaded as a restore would, without the triggers: the download only reads them.
    await ctx.app.db.transaction().execute(async (tx) => {
      await sql`SET LOCAL session_replication_role = replica`.execute(tx);
      await sql`
        INSERT INTO bookings (business_id, customer_id, resource_id, booking_date, start_time, end_time,
          duration_minutes, starts_at, ends_at, during, status, confirmation_code, capacity, source)
        SELECT ${biz.tenant.businessId}::uuid, ${customer_id}::uuid, ${biz.resources.T4}::uuid, day, '10:00',
          '11:00', 60, day + time '10:00', day + time '11:00', tstzrange(day + time '10:00', day + time '11:00'),
          'completed', 'L' || lpad(i::text, 7, '0'), 2, 'staff'
        FROM generate_series(1, 100000) AS i, LATERAL (SELECT date '2020-01-01' + i % 1500 AS day) AS d`.execute(
        tx,
      );
    });
    const address = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    // What the process holds, not what it has yet to collect: measured after a collection.
    setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as () => void;
    const held = () => {
      collect();
      return process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
    };
    const before = held();
    let peak = before;
    let rows = 0;
    let chunks = 0;
    const response = await fetch(`${address}/v1/manage/bookings.csv`, { headers: biz.tenant.headers });
    assert.equal(response.status, 200);
    for await (const chunk of response.body!) {
      rows += (chunk as Uint8Array).filter((byte) => byte === 0x0a).length;
      if (++chunks % 200 === 0) peak = Math.max(peak, held());
    }
    assert.equal(rows, 100_002, 'the header, the booking made online and the 100,000 loaded');
    assert.ok(peak - before < 50 * 1024 * 1024, `held ${Math.round((peak - before) / 1024 / 1024)} MB more`);
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
