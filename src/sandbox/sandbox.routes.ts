import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { customerOf } from '../customers/customers.service.ts';
import { commitReply, commitStatement } from '../platform/idempotency.ts';
import {
  DateString,
  errorResponses,
  example,
  IdParams,
  Nullable,
  PartySize,
  PhoneString,
  Timestamp,
  Uuid,
} from '../platform/schemas.ts';
import {
  cancelSandboxBooking,
  createSandboxBooking,
  ensureSandbox,
  getSandboxBooking,
  purgeSandbox,
  sandboxAvailability,
  sandboxResources,
} from './sandbox.service.ts';

const OffsetTime = Type.String({ format: 'date-time', description: 'ISO 8601 with the business offset' });

const SandboxBooking = Type.Object({
  id: Uuid,
  status: Type.String(),
  confirmation_code: Type.String(),
  start_time: OffsetTime,
  end_time: OffsetTime,
  capacity: Type.Integer({ format: 'int32' }),
  resource: Type.Object({ id: Uuid, name: Type.String() }),
  customer: Type.Object({
    first_name: Type.String(),
    last_name: Type.String(),
    email: Nullable(Type.String()),
    phone: Type.String(),
  }),
  notes: Nullable(Type.String()),
  created_at: Timestamp,
});

const SANDBOX_TAG = {
  tags: ['Sandbox'],
  security: [],
};

/**
 * The sandbox surface: no key, limited per client IP like every call without one, on one shared
 * demo business. Its field names follow the sandbox's own shape (timestamps with offsets, a
 * nested customer).
 */
export const sandboxRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // Looked up on each call (one indexed read): a business deleted, or a database emptied by tests,
  // is seeded again instead of being served from memory.
  const sandbox = () => ensureSandbox(app.db, app.passwords);
  const HOUR_MS = 3_600_000;
  app.jobs.add({ name: 'sandbox-purge', everyMs: HOUR_MS, run: () => purgeSandbox(app.db, app.clock.now()) });

  app.get(
    '/v1/sandbox/resources',
    {
      schema: {
        operationId: 'listSandboxResources',
        ...SANDBOX_TAG,
        summary: "The sandbox business's tables (no key needed)",
        response: {
          200: Type.Array(
            Type.Object({
              id: Uuid,
              name: Type.String(),
              section: Nullable(Type.String()),
              capacity_min: Type.Integer({ format: 'int32' }),
              capacity_max: Type.Integer({ format: 'int32' }),
            }),
          ),
        },
      },
    },
    async () => sandboxResources(app.db, await sandbox()),
  );

  app.get(
    '/v1/sandbox/availability',
    {
      schema: {
        operationId: 'getSandboxAvailability',
        ...SANDBOX_TAG,
        summary: "The sandbox's slots of one day, as start and end timestamps",
        querystring: Type.Object(
          {
            date: DateString,
            capacity: Type.Optional(PartySize({ default: 2 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            date: DateString,
            capacity: Type.Integer({ format: 'int32' }),
            timezone: Type.String(),
            slots: Type.Array(
              Type.Object({
                start_time: OffsetTime,
                end_time: OffsetTime,
                available: Type.Boolean(),
                remaining_resources: Type.Integer({ format: 'int32' }),
              }),
            ),
            reason: Nullable(Type.String()),
          }),
        },
      },
    },
    async (request) =>
      sandboxAvailability(app.availability, await sandbox(), request.query.date, request.query.capacity ?? 2),
  );

  app.post(
    '/v1/sandbox/bookings',
    {
      schema: {
        operationId: 'createSandboxBooking',
        ...SANDBOX_TAG,
        summary: 'Book the sandbox (honours Idempotency-Key)',
        body: example(
          Type.Object(
            {
              start_time: Timestamp,
              capacity: Type.Optional(PartySize({ default: 2 })),
              customer: Type.Object(
                {
                  first_name: Type.String({ minLength: 1, maxLength: 100 }),
                  last_name: Type.String({ minLength: 1, maxLength: 100 }),
                  email: Type.String({ format: 'email', maxLength: 254 }),
                  phone: PhoneString,
                },
                { additionalProperties: false },
              ),
              notes: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
            },
            { additionalProperties: false },
          ),
          {
            start_time: '2026-12-04T19:00:00+01:00',
            capacity: 2,
            customer: {
              first_name: 'Grace',
              last_name: 'Hopper',
              email: 'grace@example.com',
              phone: '+49 30 5550 1234',
            },
          },
        ),
        response: { 201: SandboxBooking, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const business = await sandbox();
      const body = request.body;
      return commitStatement(request, reply, 201, (executor) =>
        createSandboxBooking(
          executor,
          app.availability,
          business,
          {
            start_time: body.start_time,
            capacity: body.capacity ?? 2,
            customer: customerOf(body.customer),
            notes: body.notes,
          },
          app.clock.now(),
        ),
      );
    },
  );

  app.get(
    '/v1/sandbox/bookings/:booking_id',
    {
      schema: {
        operationId: 'getSandboxBooking',
        ...SANDBOX_TAG,
        summary: 'One sandbox booking',
        params: IdParams('booking_id'),
        response: { 200: SandboxBooking },
      },
    },
    async (request) => getSandboxBooking(app.db, await sandbox(), request.params.booking_id),
  );

  app.delete(
    '/v1/sandbox/bookings/:booking_id',
    {
      schema: {
        operationId: 'cancelSandboxBooking',
        ...SANDBOX_TAG,
        summary: 'Cancel a sandbox booking (answers it, cancelled)',
        params: IdParams('booking_id'),
        response: { 200: SandboxBooking },
      },
    },
    async (request, reply) => {
      const business = await sandbox();
      return commitReply(request, reply, 200, (tx) =>
        cancelSandboxBooking(tx, business, request.params.booking_id),
      );
    },
  );
};
