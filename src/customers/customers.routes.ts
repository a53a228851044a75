import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { BookingSchema, toBookingView } from '../bookings/bookings.view.ts';
import { principalOf, requireBusiness } from '../platform/access.ts';
import { notFound } from '../platform/errors.ts';
import {
  DEFAULT_PAGE_SIZE,
  decodeCursorStrings,
  foreignCursor,
  PageQuery,
  pageEnvelope,
  toPage,
} from '../platform/pagination.ts';
import {
  DateString,
  ErrorResponses,
  IdParams,
  isUuid,
  Nullable,
  Timestamp,
  Uuid,
} from '../platform/schemas.ts';
import {
  type CustomerPosition,
  customerStats,
  findCustomer,
  listCustomers,
  recentBookingsOf,
} from './customers.queries.ts';

const CustomerSchema = Type.Object({
  id: Uuid,
  first_name: Type.String(),
  last_name: Type.String(),
  phone: Type.String(),
  email: Nullable(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
});

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
  ...CustomerSchema.properties,
  bookings: Type.Array(BookingSchema, { description: 'the last 20, newest date and time first' }),
  stats: CustomerStatsSchema,
});

type CustomerRow = {
  id: string;
  first_name: string;
  last_name: string;
  phone: string;
  email: string | null;
  created_at: Date;
  updated_at: Date;
};

const toCustomerView = (row: CustomerRow) => ({
  id: row.id,
  first_name: row.first_name,
  last_name: row.last_name,
  phone: row.phone,
  email: row.email,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

function decodeCustomerCursor(cursor: string | undefined): CustomerPosition | null {
  const values = decodeCursorStrings(cursor, 3);
  if (!values) return null;
  const [lastName, firstName, id] = values as [string, string, string];
  if (!isUuid(id)) throw foreignCursor();
  return { lastName, firstName, id };
}

export const customerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/manage/customers',
    {
      onRequest: requireBusiness({ scope: 'read' }),
      schema: {
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
        response: { 200: pageEnvelope(CustomerSchema), ...ErrorResponses },
      },
    },
    async (request) => {
      const { businessId } = principalOf(request);
      const limit = request.query.limit ?? DEFAULT_PAGE_SIZE;
      const rows = await listCustomers(app.db, businessId, {
        search: request.query.search,
        limit,
        after: decodeCustomerCursor(request.query.cursor),
      });
      return toPage(rows, limit, (row) => [row.last_name, row.first_name, row.id], toCustomerView);
    },
  );

  app.get(
    '/v1/manage/customers/:customer_id',
    {
      onRequest: requireBusiness({ scope: 'read' }),
      schema: {
        tags: ['Customers'],
        summary: 'A customer with their last 20 bookings and booking statistics',
        params: IdParams('customer_id'),
        response: { 200: CustomerDetailSchema, ...ErrorResponses },
      },
    },
    async (request) => {
      const { businessId } = principalOf(request);
      const customerId = request.params.customer_id;
      const [customer, bookings, stats] = await Promise.all([
        findCustomer(app.db, businessId, customerId),
        recentBookingsOf(app.db, businessId, customerId),
        customerStats(app.db, businessId, customerId),
      ]);
      if (!customer) throw notFound('customer');
      return { ...toCustomerView(customer), bookings: bookings.map(toBookingView), stats };
    },
  );
};
