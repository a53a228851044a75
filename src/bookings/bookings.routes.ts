import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from 'typebox';
import { DURATION_DEFAULT, Duration, PLAN_AND_MODE } from '../availability/availability.view.ts';
import { acceptCustomerFlatOrNested } from '../customers/customer-fields.http.ts';
import { customerOf } from '../customers/customers.service.ts';
import { BOOKING_STATUSES, type BookingStatus } from '../engine/status.ts';
import { principalOf } from '../platform/access.ts';
import { areaRoutes } from '../platform/change-route.ts';
import { CSV_RESPONSE, type CsvColumn, everyItem, sendCsv } from '../platform/csv.ts';
import { commitStatement } from '../platform/idempotency.ts';
import { PageQuery, pageEnvelope, pageOf } from '../platform/pagination.ts';
import {
  DateString,
  errorResponses,
  example,
  IdParams,
  PartySize,
  PhoneString,
  TimeString,
  Uuid,
} from '../platform/schemas.ts';
import { BOOKING_ROUTES, bookingCall } from './bookings.http.ts';
import {
  availableResources,
  booked,
  changeBooking,
  findBooking,
  findBookings,
  saveStaffNotes,
} from './bookings.service.ts';
import { BookingSchema, type BookingView, CreatedBookingSchema } from './bookings.view.ts';
import { book } from './new-booking.service.ts';

const FirstName = Type.String({ minLength: 1, maxLength: 100 });
const Email = Type.String({ format: 'email', maxLength: 254 });
const StatusSchema = Type.Union(BOOKING_STATUSES.map((s) => Type.Literal(s)));

/** The fields of every online booking body, scheduled or dynamic: where, when, who (flat). */
export const OnlineBookingFields = {
  business_id: Uuid,
  booking_date: DateString,
  start_time: TimeString,
  first_name: FirstName,
  last_name: FirstName,
  email: Email,
  phone: PhoneString,
  customer_notes: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])),
  marketing_opt_in: Type.Optional(
    Type.Boolean({
      default: false,
      description:
        "the guest's consent to the venue's news and offers, only from a box they ticked themselves (never ticked for them): their profile keeps it until withdrawn; false gives nothing and withdraws nothing",
    }),
  ),
};

/** How a business's `deposit_type` shapes an online booking, for the creation routes' descriptions. */
export const DEPOSIT_RULES =
  "With a deposit (`deposit_type` `charge` or `authorization_hold`) the booking is `pending` and the answer adds `payment_client_secret` and `deposit_type`; unpaid after `payment_hold_minutes` it is cancelled. A hold for a booking more than 6 days ahead saves the card (a setup intent's secret) and is placed 6 days before the start. 402 `plan_upgrade_required` for holds on a plan without them; 422 `deposits_not_enabled` while the business has no payment account (sandbox businesses need none).";

export const CUSTOMER_FLAT_OR_NESTED =
  'The customer fields may also come nested as `customer: {first_name, last_name, email, phone}` instead of flat.';

const PublicBookingBody = Type.Object(
  {
    ...OnlineBookingFields,
    capacity: Type.Optional(PartySize({ default: 1 })),
    service_id: Type.Optional(Uuid),
    resource_id: Type.Optional(Uuid),
  },
  { additionalProperties: false, description: CUSTOMER_FLAT_OR_NESTED },
);

const DynamicBookingBody = Type.Object(
  {
    ...OnlineBookingFields,
    duration_minutes: Type.Optional(Duration),
    capacity: PartySize(),
  },
  { additionalProperties: false, description: CUSTOMER_FLAT_OR_NESTED },
);

const ResourceOption = Type.Object({
  id: Uuid,
  name: Type.String(),
  resource_type: Type.Union([Type.String(), Type.Null()]),
  capacity_min: Type.Integer({ format: 'int32' }),
  capacity_max: Type.Integer({ format: 'int32' }),
  section: Type.Union([Type.String(), Type.Null()]),
  display_order: Type.Integer({ format: 'int32' }),
});

/** The filters of the bookings list, of its CSV too. */
const BookingFilters = {
  res_date: Type.Optional(DateString),
  booking_date: Type.Optional(DateString),
  from_date: Type.Optional(DateString),
  to_date: Type.Optional(DateString),
  status: Type.Optional(
    Type.String({
      // Room for every status once: naming one twice filters nothing more.
      maxLength: BOOKING_STATUSES.join(',').length,
      pattern: `^(${BOOKING_STATUSES.join('|')})(,(${BOOKING_STATUSES.join('|')}))*$`,
    }),
  ),
  code: Type.Optional(Type.String({ minLength: 1, maxLength: 20 })),
  latest: Type.Optional(Type.Boolean({ default: false })),
  resource_id: Type.Optional(Uuid),
  customer_id: Type.Optional(Uuid),
};

const bookingFiltersOf = (q: Static<Type.TObject<typeof BookingFilters>>) => ({
  date: q.res_date ?? q.booking_date,
  fromDate: q.from_date,
  toDate: q.to_date,
  statuses: q.status?.split(',') as BookingStatus[] | undefined,
  code: q.code,
  resourceId: q.resource_id,
  customerId: q.customer_id,
  latest: q.latest,
});

/** The columns of bookings.csv: who, when, where, the notes and the guest's allergies and tags; the name as given with the booking. */
const BOOKING_CSV: CsvColumn<BookingView>[] = [
  { header: 'booking_date', cell: (b) => b.booking_date },
  { header: 'start_time', cell: (b) => b.start_time },
  { header: 'end_time', cell: (b) => b.end_time },
  { header: 'party_size', cell: (b) => b.capacity },
  { header: 'status', cell: (b) => b.status },
  { header: 'confirmation_code', cell: (b) => b.confirmation_code },
  { header: 'resource', cell: (b) => b.resource.name },
  { header: 'first_name', cell: (b) => b.guest?.first_name ?? b.customer.first_name },
  { header: 'last_name', cell: (b) => b.guest?.last_name ?? b.customer.last_name },
  { header: 'phone', cell: (b) => b.customer.phone },
  { header: 'email', cell: (b) => b.guest?.email ?? b.customer.email },
  { header: 'customer_notes', cell: (b) => b.customer_notes },
  { header: 'staff_notes', cell: (b) => b.staff_notes },
  { header: 'allergies', cell: (b) => b.customer.allergies ?? null },
  { header: 'tags', cell: (b) => b.customer.tags?.join('; ') ?? null },
  { header: 'source', cell: (b) => b.source },
  { header: 'customer_id', cell: (b) => b.customer_id },
  { header: 'created_at', cell: (b) => b.created_at },
];

export const bookingRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const routes = areaRoutes(app, { tags: ['Bookings'], ...BOOKING_ROUTES });

  routes.route('POST', '/v1/bookings', {
    preValidation: acceptCustomerFlatOrNested('flat'),
    // With a deposit the answer carries the payment's client secret.
    config: { sensitive: true, publishable: true },
    operationId: 'createBooking',
    summary: 'Book a slot (API key with the write scope, or a publishable key)',
    description: `Every rule is re-checked in one transaction; the best-fitting free resource is chosen unless \`resource_id\` names one. Concurrent requests for the last free resource: exactly one wins, the others get 409 \`slot_unavailable\`. ${DEPOSIT_RULES}`,
    body: example(PublicBookingBody, {
      business_id: '0b6f3e62-5d1c-4c55-9a43-0f4c2a1b7e10',
      booking_date: '2026-12-04',
      start_time: '19:00',
      capacity: 2,
      first_name: 'Grace',
      last_name: 'Hopper',
      email: 'grace@example.com',
      phone: '+49 30 5550 1234',
    }),
    response: { 201: Type.Object({ booking: CreatedBookingSchema }), ...errorResponses(404) },
    handler: async (request, reply) => {
      const body = request.body;
      return book(
        app.availability,
        app.publicBookingDeposits,
        {
          businessId: body.business_id,
          date: body.booking_date,
          time: body.start_time,
          partySize: body.capacity ?? 1,
          serviceId: body.service_id,
          resourceId: body.resource_id,
          customer: customerOf(body),
          customerNotes: body.customer_notes,
          marketingOptIn: body.marketing_opt_in,
          source: 'online',
        },
        bookingCall(request, reply, 201),
      );
    },
  });

  routes.route('POST', '/v1/dynamic/bookings', {
    preValidation: acceptCustomerFlatOrNested('flat'),
    // With a deposit the answer carries the payment's client secret.
    config: { sensitive: true, publishable: true },
    operationId: 'createDynamicBooking',
    tags: ['Dynamic mode'],
    summary: 'Book any start minute for any length (dynamic mode)',
    description: `Every rule is re-checked in one transaction and the best-fitting free resource taken; when none is free, 409 \`slot_unavailable\` with \`detail\` beside \`error\`. ${PLAN_AND_MODE} ${DEPOSIT_RULES}`,
    body: example(DynamicBookingBody, {
      business_id: '0b6f3e62-5d1c-4c55-9a43-0f4c2a1b7e10',
      booking_date: '2026-12-04',
      start_time: '19:10',
      duration_minutes: 45,
      capacity: 2,
      first_name: 'Grace',
      last_name: 'Hopper',
      email: 'grace@example.com',
      phone: '+49 30 5550 1234',
    }),
    response: { 201: Type.Object({ booking: CreatedBookingSchema }), ...errorResponses(400, 404) },
    handler: async (request, reply) => {
      const body = request.body;
      return book(
        app.availability,
        app.publicBookingDeposits,
        {
          businessId: body.business_id,
          date: body.booking_date,
          time: body.start_time,
          durationMinutes: body.duration_minutes ?? DURATION_DEFAULT,
          partySize: body.capacity,
          customer: customerOf(body),
          customerNotes: body.customer_notes,
          marketingOptIn: body.marketing_opt_in,
          source: 'online',
          mode: 'dynamic',
        },
        bookingCall(request, reply, 201),
      );
    },
  });

  routes.route('GET', '/v1/manage/bookings', {
    operationId: 'listBookings',
    summary: 'List bookings',
    description:
      'Ordered by booking_date, start_time, id; `latest=true` orders newest created first. `code` matches confirmation codes case-insensitively and partially. `status` takes one status or a comma-separated list.',
    querystring: Type.Object({ ...PageQuery, ...BookingFilters }, { additionalProperties: false }),
    response: { 200: pageEnvelope(BookingSchema) },
    handler: async (request) => findBookings(app.db, pageOf(request), bookingFiltersOf(request.query)),
  });

  routes.route('GET', '/v1/manage/bookings.csv', {
    operationId: 'downloadBookings',
    summary: 'Every booking the list would show, as a CSV download (RFC 4180, UTF-8 with BOM)',
    description:
      "The same filters and order as `GET /v1/manage/bookings`, every page. A cell a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, a tab or a carriage return) is written behind a `'`.",
    querystring: Type.Object(BookingFilters, { additionalProperties: false }),
    response: CSV_RESPONSE,
    handler: async (request, reply) => {
      const filters = bookingFiltersOf(request.query);
      const rows = everyItem(pageOf(request), app.config.dbRequestDeadlineMs, (page) =>
        findBookings(app.db, page, filters),
      );
      return sendCsv(reply, 'bookings.csv', BOOKING_CSV, rows);
    },
  });

  routes.route('GET', '/v1/manage/bookings/:booking_id', {
    operationId: 'getBooking',
    summary: 'One booking',
    description:
      'Answers a `Link: </v1/manage/messages?booking_id=ID>; rel="messages"` header: the messages sent to the guest about this booking.',
    params: IdParams('booking_id'),
    response: { 200: BookingSchema },
    handler: async (request, reply) => {
      const booking = await findBooking(
        app.db,
        principalOf(request).businessId,
        request.params.booking_id,
        'host',
      );
      reply.header('link', `</v1/manage/messages?booking_id=${booking.id}>; rel="messages"`);
      return booking;
    },
  });

  routes.route('PATCH', '/v1/manage/bookings/:booking_id', {
    operationId: 'updateBooking',
    summary: 'Change status, resource, party size or time of a booking',
    description:
      'Status moves follow the status machine (409 otherwise). A new `resource_id` or `capacity` is re-checked against the resource; `booking_date`/`start_time` reschedule the booking with every rule of a new one. `table_locked` keeps it on its table when another party is re-seated.',
    params: IdParams('booking_id'),
    body: example(
      Type.Object(
        {
          status: Type.Optional(StatusSchema),
          resource_id: Type.Optional(Uuid),
          capacity: Type.Optional(PartySize()),
          booking_date: Type.Optional(DateString),
          start_time: Type.Optional(TimeString),
          table_locked: Type.Optional(
            Type.Boolean({ description: 'keep the booking on its table: re-seating never moves it' }),
          ),
        },
        { additionalProperties: false, minProperties: 1 },
      ),
      { capacity: 4, start_time: '20:00' },
    ),
    response: { 200: BookingSchema },
    handler: async (request, reply) => {
      const principal = principalOf(request);
      return commitStatement(request, reply, 200, async (executor) =>
        booked(
          request,
          await changeBooking(
            executor,
            app.availability,
            principal,
            request.params.booking_id,
            request.body,
            app.clock.now(),
          ),
        ),
      );
    },
  });

  routes.change('PATCH', '/v1/manage/bookings/:booking_id/notes', {
    operationId: 'updateBookingNotes',
    summary: "Save the staff's notes on a booking (kept after it closes)",
    params: IdParams('booking_id'),
    body: example(
      Type.Object({ staff_notes: Type.String({ maxLength: 2000 }) }, { additionalProperties: false }),
      { staff_notes: 'Window table requested' },
    ),
    response: { 200: BookingSchema },
    change: (tx, principal, { params, body }) =>
      saveStaffNotes(tx, principal, params.booking_id, body.staff_notes),
  });

  routes.route('GET', '/v1/manage/bookings/:booking_id/available-resources', {
    operationId: 'listAvailableResources',
    summary: 'Resources the booking could move to',
    description:
      'Active resources that fit the party and are free for the whole booking (buffers included), excluding its current one.',
    params: IdParams('booking_id'),
    response: { 200: Type.Array(ResourceOption) },
    handler: async (request) =>
      availableResources(app.db, principalOf(request).businessId, request.params.booking_id),
  });
};
