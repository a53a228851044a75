import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { CustomerView } from '../customers/customers.view.ts';
import { principalOf, requireBusiness } from '../platform/access.ts';
import { DateString, IdParams, Nullable } from '../platform/schemas.ts';
import { BookingSchema } from './bookings.view.ts';
import { customerDetail } from './customer-detail.service.ts';

const CustomerStatsSchema = Type.Object({
  total_bookings: Type.Integer({ format: 'int32' }),
  completed: Type.Integer({ format: 'int32' }),
  cancelled: Type.Integer({ format: 'int32' }),
  no_shows: Type.Integer({ format: 'int32' }),
  upcoming: Type.Integer({
    format: 'int32',
    description: 'pending, confirmed or checked in, starting in the future',
  }),
  total_covers: Type.Integer({
    format: 'int32',
    description: 'sum of party sizes of bookings not cancelled',
  }),
  first_booking_date: Nullable(DateString),
  last_booking_date: Nullable(DateString),
});

const CustomerDetailSchema = Type.Object({
  ...CustomerView.properties,
  bookings: Type.Array(BookingSchema, { description: 'the last 20, newest date and time first' }),
  stats: CustomerStatsSchema,
});

/** A customer's detail lists their bookings, so it sits with bookings, above customers. */
export const customerDetailRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/manage/customers/:customer_id',
    {
      onRequest: requireBusiness({ scope: 'read' }),
      schema: {
        operationId: 'getCustomer',
        tags: ['Customers'],
        summary: 'A customer with their last 20 bookings and booking statistics',
        params: IdParams('customer_id'),
        response: { 200: CustomerDetailSchema },
      },
    },
    async (request) => customerDetail(app.db, principalOf(request).businessId, request.params.customer_id),
  );
};
