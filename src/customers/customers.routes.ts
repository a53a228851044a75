import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { BookingSchema } from '../bookings/bookings.view.ts';
import { principalOf, requireBusiness } from '../platform/access.ts';
import { PageQuery, pageEnvelope, pageOf } from '../platform/pagination.ts';
import { DateString, IdParams, Nullable } from '../platform/schemas.ts';
import { CustomerView } from './customers.queries.ts';
import { customerDetail, findCustomers } from './customers.service.ts';

const CustomerStatsSchema = Type.Object({
  total_bookings: Type.Integer(),
  completed: Type.Integer(),
  cancelled: Type.Integer(),
  no_shows: Type.Integer(),
  upcoming: Type.Integer({ description: 'pending, confirmed or checked in, starting in the future' }),
  total_covers: Type.Integer({ description: 'sum of party sizes of bookings not cancelled' }),
  first_booking_date: Nullable(DateString),
  last_booking_date: Nullable(DateString),
});

const CustomerDetailSchema = Type.Object({
  ...CustomerView.properties,
  bookings: Type.Array(BookingSchema, { description: 'the last 20, newest date and time first' }),
  stats: CustomerStatsSchema,
});

export const customerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/manage/customers',
    {
      onRequest: requireBusiness({ scope: 'read' }),
      schema: {
        operationId: 'listCustomers',
        tags: ['Customers'],
        summary: 'List customers by last name, optionally searching name, phone and email',
        querystring: Type.Object(
          {
            search: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 100,
                description:
                  'case-insensitive partial match on first name, last name, phone or email; digits also match the phone whatever its formatting',
              }),
            ),
            ...PageQuery,
          },
          { additionalProperties: false },
        ),
        response: { 200: pageEnvelope(CustomerView) },
      },
    },
    async (request) => findCustomers(app.db, pageOf(request), request.query.search),
  );

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
