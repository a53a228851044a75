import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { CustomerView } from '../customers/customers.view.ts';
import { principalOf, requireBusiness } from '../platform/access.ts';
import { areaRoutes } from '../platform/change-route.ts';
import { withTx } from '../platform/db.ts';
import { DateString, IdParams, Nullable, Timestamp, Uuid } from '../platform/schemas.ts';
import { BookingSchema } from './bookings.view.ts';
import { customerDetail, customerExport } from './customer-detail.service.ts';

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

const CustomerExportSchema = Type.Object({
  exported_at: Timestamp,
  customer: CustomerView,
  merged_profiles: Type.Array(
    Type.Object({
      id: Uuid,
      first_name: Type.String(),
      last_name: Type.String(),
      phone: Type.String(),
      email: Nullable(Type.String()),
      created_at: Timestamp,
    }),
    { description: 'the duplicates merged into this profile, as they were' },
  ),
  bookings: Type.Array(BookingSchema, { description: 'every booking, newest first' }),
  waitlist_entries: Type.Array(
    Type.Object({
      id: Uuid,
      preferred_date: Nullable(DateString),
      capacity: Type.Integer({ format: 'int32' }),
      guest_first_name: Nullable(Type.String()),
      guest_last_name: Nullable(Type.String()),
      guest_email: Nullable(Type.String()),
      notes: Nullable(Type.String()),
      created_at: Timestamp,
    }),
  ),
  messages: Type.Array(
    Type.Object({
      id: Uuid,
      type: Type.String(),
      channel: Type.String(),
      to_address: Type.String(),
      subject: Nullable(Type.String()),
      body_text: Nullable(Type.String()),
      created_at: Timestamp,
      sent_at: Nullable(Timestamp),
    }),
    {
      description: 'every email and SMS written about the guest’s bookings and waitlist entries, as rendered',
    },
  ),
  audit: Type.Array(
    Type.Object({
      action: Type.String(),
      entity_type: Type.String(),
      entity_id: Nullable(Uuid),
      actor: Type.String(),
      before: Type.Unknown(),
      after: Type.Unknown(),
      created_at: Timestamp,
    }),
    { description: 'the audit rows about the guest and their bookings, oldest first' },
  ),
});

/** A customer's detail lists their bookings, so it sits with bookings, above customers. */
export const customerDetailRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const routes = areaRoutes(app, { tags: ['Customers'] });

  routes.route('GET', '/v1/manage/customers/:customer_id', {
    operationId: 'getCustomer',
    summary: 'A customer with their last 20 bookings and booking statistics',
    params: IdParams('customer_id'),
    response: { 200: CustomerDetailSchema },
    handler: async (request) =>
      customerDetail(app.db, principalOf(request).businessId, request.params.customer_id),
  });

  routes.route('GET', '/v1/manage/customers/:customer_id/export', {
    onRequest: requireBusiness({ scope: 'admin' }),
    operationId: 'exportCustomer',
    summary: 'Everything held about a guest, as JSON, for their right of access (audited)',
    params: IdParams('customer_id'),
    response: { 200: CustomerExportSchema },
    handler: async (request) => {
      const principal = principalOf(request);
      return withTx(app.db, (tx) =>
        customerExport(tx, principal, request.params.customer_id, new Date(app.clock.now())),
      );
    },
  });
};
