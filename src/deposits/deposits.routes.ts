import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { AuditActor } from '../audit/audit.service.ts';
import {
  ALIASES_ACCEPTED,
  acceptAliases,
  BOOKING_ROUTES,
  bookingCall,
  StaffBookingFields,
  staffBookingOf,
} from '../bookings/bookings.http.ts';
import { BookingSchema } from '../bookings/bookings.view.ts';
import { book } from '../bookings/new-booking.service.ts';
import { customerOf } from '../customers/customers.service.ts';
import { principalOf } from '../platform/access.ts';
import { areaRoutes } from '../platform/change-route.ts';
import { type Commit, commitReply, commitWith } from '../platform/idempotency.ts';
import { errorResponses, example, IdParams, Timestamp } from '../platform/schemas.ts';
import { markNoShow, releaseHold } from './no-show.service.ts';
import { staffBookingDeposits } from './payment-links.service.ts';

const StaffDepositBody = Type.Object(
  { ...StaffBookingFields, email: Type.String({ format: 'email', maxLength: 254 }) },
  { additionalProperties: false, description: ALIASES_ACCEPTED },
);

const DetailAnswer = Type.Object({
  detail: Type.String(),
  booking: BookingSchema,
});

export const depositRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const routes = areaRoutes(app, { tags: ['Deposits'], ...BOOKING_ROUTES });

  routes.route('POST', '/v1/manage/bookings/staff-deposit', {
    preValidation: acceptAliases,
    // The answer carries the guest's payment link.
    config: { sensitive: true },
    operationId: 'createStaffDepositBooking',
    summary: 'Staff booking paid by a deposit link: pending until the guest pays',
    description:
      "Staff rules (any minute inside hours, no notice or window). The booking is `pending` with a `charge` deposit (the deposit per person times the party) paid through the processor's checkout page; the link is emailed to the guest and expires after 2 hours, when an unpaid booking is cancelled. 422 `deposits_not_enabled` until the business has a payment account (sandbox businesses need none).",
    body: example(StaffDepositBody, {
      date: '2026-12-04',
      time: '19:30',
      capacity: 6,
      first_name: 'Grace',
      last_name: 'Hopper',
      email: 'grace@example.com',
      phone: '+49 30 5550 1234',
    }),
    response: {
      201: Type.Object({
        booking: BookingSchema,
        checkout_url: Type.String(),
        expires_at: Timestamp,
      }),
      ...errorResponses(404),
    },
    handler: async (request, reply) => {
      const body = request.body;
      return book(
        app.availability,
        staffBookingDeposits(app.deposits),
        { ...staffBookingOf(body), customer: { ...customerOf(body), email: body.email } },
        bookingCall(request, reply, 201, commitReply),
      );
    },
  });

  /** An action on a booking's held deposit: answered with what it did and the booking as it now is. */
  const holdAction = (
    action: string,
    texts: { operationId: string; summary: string; description: string },
    act: (actor: AuditActor, bookingId: string, commit: Commit<FastifyReply>) => Promise<FastifyReply>,
  ) =>
    routes.route('POST', `/v1/manage/bookings/:booking_id/${action}`, {
      ...texts,
      params: IdParams('booking_id'),
      response: { 200: DetailAnswer },
      handler: async (request, reply) =>
        act(principalOf(request), request.params.booking_id, commitWith(request, reply, 200)),
    });

  holdAction(
    'no-show',
    {
      operationId: 'markNoShow',
      summary: 'Mark a no-show and capture its EUR 20 hold',
      description:
        "For a `confirmed` or `checked_in` booking whose deposit is `held`, from the booking's start on: the hold is captured, the booking becomes `no_show` and the deposit `captured`. Otherwise (before the start too) 409 with `detail`. A retry after a failure never captures twice.",
    },
    (actor, bookingId, commit) => markNoShow(app.deposits, actor, bookingId, app.clock.now(), commit),
  );

  holdAction(
    'release-hold',
    {
      operationId: 'releaseHold',
      summary: 'Release a held deposit without charging',
      description:
        "For a booking whose deposit is `held`: the hold is cancelled and the deposit becomes `released`; the booking's status stays. Otherwise 409 with `detail`.",
    },
    (actor, bookingId, commit) => releaseHold(app.deposits, actor, bookingId, commit),
  );
};
