import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { principalOf } from '../platform/access.ts';
import { areaRoutes } from '../platform/change-route.ts';
import { invalidField } from '../platform/errors.ts';
import { commitReply } from '../platform/idempotency.ts';
import { DateString, errorResponses, example, IdParams, TimeString, Uuid } from '../platform/schemas.ts';
import { BOOKING_ROUTES } from './bookings.http.ts';
import type { BookingChange } from './bookings.service.ts';
import { changeSeries, seriesOf } from './series.service.ts';
import { SeriesBookingsSchema } from './series.view.ts';

const FROM_DATE = Type.Optional({
  ...DateString,
  description: 'this occurrence and the following ones; every occurrence when absent',
});

export const seriesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const routes = areaRoutes(app, { tags: ['Bookings'], ...BOOKING_ROUTES });

  /** One change to the series' open occurrences from `fromDate` on, answered with those changed. */
  const changeAnswered = (
    request: FastifyRequest<{ Params: { series_id: string } }>,
    reply: FastifyReply,
    fromDate: string | undefined,
    change: BookingChange,
  ) =>
    commitReply(request, reply, 200, async (tx) => {
      const { heldDates, ...changed } = await changeSeries(
        tx,
        app.availability,
        principalOf(request),
        request.params.series_id,
        fromDate,
        app.clock.now(),
        change,
      );
      request.bookedDates = heldDates;
      return changed;
    });

  routes.route('GET', '/v1/manage/series/:series_id', {
    operationId: 'getBookingSeries',
    summary: "A series' bookings, in date order",
    params: IdParams('series_id'),
    response: { 200: SeriesBookingsSchema, ...errorResponses(404) },
    handler: async (request) => seriesOf(app.db, principalOf(request).businessId, request.params.series_id),
  });

  routes.route('POST', '/v1/manage/series/:series_id/cancel', {
    operationId: 'cancelBookingSeries',
    summary: 'Cancel a series, or one occurrence and the following',
    description:
      'Each open occurrence (not seated, not closed) from `from_date` on is cancelled as a staff cancellation cancels a booking, in one transaction; answers those cancelled.',
    params: IdParams('series_id'),
    body: example(Type.Object({ from_date: FROM_DATE }, { additionalProperties: false }), {
      from_date: '2027-01-12',
    }),
    response: { 200: SeriesBookingsSchema, ...errorResponses(404) },
    handler: async (request, reply) =>
      changeAnswered(request, reply, request.body.from_date, { status: 'cancelled' }),
  });

  routes.route('POST', '/v1/manage/series/:series_id/move', {
    operationId: 'moveBookingSeries',
    summary: 'Move a series, or one occurrence and the following, to another time or resource',
    description:
      'Each open occurrence from `from_date` on moves on its own date, with every rule of a staff change, in one transaction: one refused refuses the move (its date named) and nothing moves. Answers those moved.',
    params: IdParams('series_id'),
    body: example(
      Type.Object(
        {
          from_date: FROM_DATE,
          time: Type.Optional(TimeString),
          resource_id: Type.Optional(Uuid),
        },
        { additionalProperties: false },
      ),
      { from_date: '2027-01-12', time: '10:30' },
    ),
    response: { 200: SeriesBookingsSchema, ...errorResponses(404) },
    handler: async (request, reply) => {
      const { from_date: fromDate, time, resource_id: resourceId } = request.body;
      if (time === undefined && resourceId === undefined) {
        throw invalidField('time', 'a move names a time, a resource_id or both');
      }
      return changeAnswered(request, reply, fromDate, {
        ...(time !== undefined && { start_time: time }),
        ...(resourceId !== undefined && { resource_id: resourceId }),
      });
    },
  });
};
