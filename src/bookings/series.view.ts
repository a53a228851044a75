import { Type } from 'typebox';
import { DateString, Uuid } from '../platform/schemas.ts';
import { BookingSchema, type BookingView } from './bookings.view.ts';

/**
 * A staff series as placed: its bookings, and the occurrences it could not place with the reason.
 * Answered beside a single booking's answer by the same route, whose schema holds `Booking`
 * already: its bookings refer to that one, since a schema may declare an `$id` only once.
 */
export const PlacedSeriesSchema = Type.Object(
  {
    series_id: Uuid,
    bookings: Type.Array(Type.Unsafe<BookingView>({ $ref: 'Booking' })),
    not_placed: Type.Array(
      Type.Object({
        booking_date: DateString,
        reason: Type.String({ description: 'the code a single booking of that date is refused with' }),
        message: Type.String(),
      }),
    ),
  },
  { $id: 'PlacedBookingSeries' },
);

/** A series' bookings: all of them, or those a change to the series changed. */
export const SeriesBookingsSchema = Type.Object(
  { series_id: Uuid, bookings: Type.Array(BookingSchema) },
  { $id: 'BookingSeries' },
);
