import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { bookOk, guest, setupBookable } from '../../test/booking-fixtures.ts';
import {
  assertNamesFields,
  bearer,
  createTenant,
  dashboardToken,
  itChecksAuth,
  type Tenant,
  useTestApp,
} from '../../test/helpers.ts';
import type { WithheldClass } from '../schema.ts';
import { maskEmail, maskPhone } from './messages.view.ts';
import { insertMessage, type NewMessage } from './outbox.queries.ts';

const ctx = useTestApp();

/** Writes a message of the tenant's business with the outcome given; answers its id. */
async function message(
  tenant: Tenant,
  fields: Partial<NewMessage> = {},
  outcome: {
    sent_at?: Date;
    failed_at?: Date;
    withheld_at?: Date;
    withheld_class?: WithheldClass;
    last_error?: string;
    created_at?: Date;
  } = {},
): Promise<string> {
  await insertMessage(ctx.app.db, {
    businessId: tenant.businessId,
    type: 'booking_confirmed',
    channel: 'email',
    to: 'jane.doe@example.com',
    payload: {},
    ...fields,
  });
  const { id } = await ctx.app.db
    .selectFrom('message_outbox')
    .select('id')
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirstOrThrow();
  if (Object.keys(outcome).length) {
    await ctx.app.db.updateTable('message_outbox').set(outcome).where('id', '=', id).execute();
  }
  return id;
}

const list = (tenant: Tenant, query = '', headers = tenant.headers) =>
  ctx.app.inject({ method: 'GET', url: `/v1/manage/messages${query}`, headers });

describe('GET /v1/manage/messages', () => {
  it('answers each message with its recipient masked and how it fared', async () => {
    const tenant = await createTenant(ctx.app);
    const bookingId = randomUUID();
    const at = (minute: number) => new Date(Date.UTC(2026, 10, 1, 12, minute));
    const queued = await message(tenant, { bookingId }, { created_at: at(1) });
    const retrying = await message(
      tenant,
      { channel: 'sms', to: '+49 30 1234 567', type: 'booking_reminder', bookingId },
      { last_error: 'http_500', created_at: at(2) },
    );
    const sent = await message(tenant, {}, { sent_at: at(4), created_at: at(3) });
    const gaveUp = await message(tenant, {}, { failed_at: at(5), last_error: 'rejected', created_at: at(4) });
    const withheld = await message(
      tenant,
      {},
      { withheld_at: at(6), withheld_class: 'sandbox', created_at: at(5) },
    );
    const peerWords = await message(
      tenant,
      {},
      { last_error: '550 5.1.1 <jane.doe@example.com>: Recipient address rejected', created_at: at(6) },
    );
    await ctx.app.db
      .insertInto('message_outbox')
      .values({
        business_id: tenant.businessId,
        to_address: 'payer@example.com',
        subject: 'Pay your deposit',
        body_text: 'https://pay.example/x',
        created_at: at(7),
      })
      .execute();

    const response = await list(tenant);
    assert.equal(response.statusCode, 200, response.body);
    const items = response.json().items as Record<string, unknown>[];
    assert.deepEqual(
      items.map(({ id, type, channel, recipient, status, error, withheld_class, booking_id, sent_at }) => ({
        id,
        type,
        channel,
        recipient,
        status,
        error,
        ...(withheld_class === null ? {} : { withheld_class }),
        booking_id,
        sent_at,
      })),
      [
        {
          id: items[0]!.id,
          type: 'notice',
          channel: 'email',
          recipient: 'p***@e***.com',
          status: 'queued',
          error: null,
          booking_id: null,
          sent_at: null,
        },
        ...[
          [peerWords, 'queued', 'send_error', null],
          [withheld, 'withheld', null, null, 'sandbox'],
          [gaveUp, 'failed', 'rejected', null],
          [sent, 'sent', null, at(4).toISOString()],
        ].map(([id, status, error, sentAt, withheldClass]) => ({
          id,
          type: 'booking_confirmed',
          channel: 'email',
          recipient: 'j***@e***.com',
          status,
          error,
          ...(withheldClass ? { withheld_class: withheldClass } : {}),
          booking_id: null,
          sent_at: sentAt,
        })),
        {
          id: retrying,
          type: 'booking_reminder',
          channel: 'sms',
          recipient: '***567',
          status: 'queued',
          error: 'http_500',
          booking_id: bookingId,
          sent_at: null,
        },
        {
          id: queued,
          type: 'booking_confirmed',
          channel: 'email',
          recipient: 'j***@e***.com',
          status: 'queued',
          error: null,
          booking_id: bookingId,
          sent_at: null,
        },
      ],
    );
    assert.equal(items[6]!.created_at, at(1).toISOString());
    assert.doesNotMatch(response.body, /jane|1234|Recipient address/);
  });

  it('masks addresses to their first letters and phones to their last 3 digits', () => {
    assert.equal(maskEmail('jane@example.com'), 'j***@e***.com');
    assert.equal(maskEmail('Élodie@mail.co.uk'), 'É***@m***.uk');
    assert.equal(maskEmail('a@localhost'), 'a***@l***');
    assert.equal(maskPhone('+33 (1) 23-45-67-89'), '***789');
  });

  it('filters by booking, and a staff member may read', async () => {
    const biz = await setupBookable(ctx.app);
    // The booking's own change writes its confirmation; the other two belong to no or another booking.
    const booking = await bookOk(ctx.app, biz, guest());
    await message(biz.tenant, { bookingId: randomUUID() });
    await message(biz.tenant);
    const token = await dashboardToken(ctx.app, biz.tenant, 'staff_member');
    const response = await list(biz.tenant, `?booking_id=${booking.id}`, bearer(token));
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(
      response.json().items.map((item: { type: string; booking_id: string }) => [item.type, item.booking_id]),
      [['booking_confirmed', booking.id]],
    );
  });

  it('links a booking to its messages', async () => {
    const biz = await setupBookable(ctx.app);
    const booking = await bookOk(ctx.app, biz);
    const detail = await ctx.app.inject({
      method: 'GET',
      url: `/v1/manage/bookings/${booking.id}`,
      headers: biz.tenant.headers,
    });
    assert.equal(detail.statusCode, 200, detail.body);
    const link = detail.headers.link as string;
    assert.equal(link, `</v1/manage/messages?booking_id=${booking.id}>; rel="messages"`);
    const messages = await list(biz.tenant, link.slice(link.indexOf('?'), link.indexOf('>')));
    assert.equal(messages.statusCode, 200, messages.body);
  });

  it('pages newest first without skipping or repeating a message', async () => {
    const tenant = await createTenant(ctx.app);
    const same = new Date(Date.UTC(2026, 10, 1, 12));
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await message(tenant, {}, { created_at: same }));
    const seen: string[] = [];
    let query = '?limit=2';
    for (let pages = 0; pages < 3; pages++) {
      const response = await list(tenant, query);
      assert.equal(response.statusCode, 200, response.body);
      const page = response.json();
      seen.push(...page.items.map((item: { id: string }) => item.id));
      assert.equal(page.has_more, pages < 2);
      query = `?limit=2&cursor=${page.next_cursor}`;
    }
    assert.deepEqual(seen, [...ids].sort().reverse());
  });

  it('refuses a malformed booking id, limit or cursor with 422', async () => {
    const tenant = await createTenant(ctx.app);
    await assertNamesFields(
      [
        ['?booking_id=nope', 'booking_id'],
        ['?limit=0', 'limit'],
        ['?cursor=forged.cursor', 'cursor'],
        ['?sender=x', 'sender'],
      ],
      (query) => list(tenant, query),
    );
  });

  it('shows a business only its own messages, whatever booking it names', async () => {
    const a = await createTenant(ctx.app, { name: 'A' });
    const b = await createTenant(ctx.app, { name: 'B' });
    const bookingId = randomUUID();
    const ofA = await message(a, { bookingId });
    const ofB = await message(b);
    const forA = (await list(a)).json().items.map((item: { id: string }) => item.id);
    assert.deepEqual(forA, [ofA]);
    assert.deepEqual(
      (await list(b)).json().items.map((item: { id: string }) => item.id),
      [ofB],
    );
    assert.deepEqual((await list(b, `?booking_id=${bookingId}`)).json().items, []);
    await message(a);
    const cursorOfA = (await list(a, '?limit=1')).json().next_cursor;
    const foreign = await list(b, `?limit=1&cursor=${cursorOfA}`);
    assert.equal(foreign.statusCode, 422, foreign.body);
    assert.equal(foreign.json().error.fields[0].field, 'cursor');
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, {
      route: () => ({ method: 'GET', url: '/v1/manage/messages', scope: 'read', staff: true }),
    });
  });
});
