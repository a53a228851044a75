import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { venueWallClock } from '../availability/availability.service.ts';
import { principalOf } from '../platform/access.ts';
import { areaRoutes } from '../platform/change-route.ts';
import { invalidField } from '../platform/errors.ts';
import { commitReply } from '../platform/idempotency.ts';
import { errorResponses, example } from '../platform/schemas.ts';
import {
  acceptAliases,
  BOOKING_ROUTES,
  bookingCall,
  StaffBookingBody,
  staffBookingOf,
} from './bookings.http.ts';
import { BookingSchema } from './bookings.view.ts';
import { book } from './new-booking.service.ts';
import { occurrenceDates, placeSeries } from './series.service.ts';
import { PlacedSeriesSchema } from './series.view.ts';

export const staffBookingRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const routes = areaRoutes(app, { tags: ['Bookings'], ...BOOKING_ROUTES });

  routes.route('POST', '/v1/manage/bookings/staff', {
    preValidation: acceptAliases,
    operationId: 'createStaffBooking',
    summary: 'Staff booking (walk-ins, phone calls): any minute inside hours, auto-assigned resource',
    description:
      'No minimum notice or booking window; confirmed, or seated (`checked_in`) for a walk-in; 409 `slot_unavailable` when nothing is free. With `recurrence`, a series of such bookings placed in one transaction.',
    body: example(StaffBookingBody, {
      date: '2026-12-04',
      time: '19:30',
      capacity: 4,
      first_name: 'Grace',
      last_name: 'Hopper',
      phone: '+49 30 5550 1234',
    }),
    response: {
      201: Type.Union([Type.Object({ booking: BookingSchema }), PlacedSeriesSchema]),
      ...errorResponses(404),
    },
    handler: async (request, reply) => {
      const { recurrence, all_or_nothing: allOrNothing = false } = request.body;
      if (recurrence) {
        if (request.body.walk_in) throw invalidField('recurrence', 'a walk-in is not a series');
        const input = staffBookingOf(request.body);
        const dates = occurrenceDates(input.date, recurrence);
        return commitReply(request, reply, 201, async (tx) => {
          const { heldDates, ...series } = await placeSeries(
            tx,
            app.availability,
            principalOf(request),
            input,
            dates,
            allOrNothing,
            app.clock.now(),
          );
          request.bookedDates = heldDates;
          return series;
        });
      }
      const venueNow = request.body.walk_in
        ? await venueWallClock(app.availability, principalOf(request).businessId, app.clock.now())
        : undefined;
      return book(
        app.availability,
        null,
        staffBookingOf(request.body, venueNow),
        bookingCall(request, reply, 201),
      );
    },
  });
};
