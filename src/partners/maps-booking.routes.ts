import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { type Static, type TSchema, Type } from 'typebox';
import { guard } from '../platform/access.ts';
import { matchesAny } from '../platform/browser-assets.ts';
import { AppError } from '../platform/errors.ts';
import { chargeToBusiness } from '../platform/fair-share.ts';
import { clientAddress } from '../platform/rate-limit.ts';
import { example } from '../platform/schemas.ts';
import { AvailabilityFeed, type Feed, type FeedDeps, merchantsFeed, servicesFeed } from './feeds.service.ts';
import {
  batchAvailabilityLookup,
  bookingStatus,
  checkAvailability,
  createPartnerBooking,
  type MapsBookingDeps,
  merchantOf,
  updatePartnerBooking,
  userBookings,
} from './maps-booking.service.ts';
import {
  BatchAvailabilityLookupRequest,
  CheckAvailabilityRequest,
  CreateBookingRequest,
  GetBookingStatusRequest,
  ListBookingsRequest,
  snakeKeys,
  UpdateBookingRequest,
} from './maps-booking.view.ts';
import { type Partner, PartnerAuthenticator } from './partners.service.ts';

/** A message of the spec, as docs/partners.md and the spec's pages define it. */
const SpecAnswer = Type.Object(
  {},
  { additionalProperties: true, description: "the spec's response message of the method (docs/partners.md)" },
);

const TAGS = ['Reservation partners'];
const PARTNER_SECURITY = [{ partnerBasic: [] }];

const SAMPLE_MERCHANT = '0b6f3e62-5d1c-4c55-9a43-0f4c2a1b7e10';
const SAMPLE_BOOKING = '6f1c2a0e-8a43-4c55-9d7e-2b1f3f4e5a6b';
const SAMPLE_SLOT_TIME = {
  service_id: 'reservation',
  start_sec: '1796634000',
  duration_sec: '5400',
  resource_ids: { party_size: 2 },
};
const SAMPLE_SLOT = {
  merchant_id: SAMPLE_MERCHANT,
  service_id: 'reservation',
  start_sec: '1796634000',
  duration_sec: '5400',
  resources: { party_size: 2 },
  confirmation_mode: 'CONFIRMATION_MODE_SYNCHRONOUS',
};

/** Where the booking server answers: `{base}/v3/<Method>`, as the spec's partner portal configures it. */
export const MAPS_BOOKING_BASE = '/partners/maps-booking';

/**
 * The booking server of the Maps Booking v3 partner API, for the partner whose HTTP Basic
 * credentials each call carries. Its routes follow the spec, not this API's conventions (the
 * spec's pages, named in docs/partners.md, define the messages): a malformed call or one naming
 * what the partner cannot reach is 400, a business refusal is 200 with `booking_failure`.
 */
export const mapsBookingRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const deps: MapsBookingDeps = { db: app.db, availability: app.availability };
  const feedDeps: FeedDeps = {
    db: app.db,
    availability: app.availability,
    changes: app.changes,
    publicBaseUrl: app.config.publicBaseUrl,
  };
  const authenticator = new PartnerAuthenticator(app.db);
  const partners = new WeakMap<FastifyRequest, Partner>();
  const partnerOf = (request: FastifyRequest) => partners.get(request)!;

  // Failed tries count as failed logins of the user name: 429 once they lock it.
  const partnerGuard = guard([401, 429], async (request, reply) => {
    try {
      const partner = await authenticator.authenticate(request.headers.authorization, {
        now: new Date(app.clock.now()),
        clientIp: clientAddress(request),
      });
      partners.set(request, partner);
      // The partner's own rate limit, whatever address it calls from; no business until one is named.
      request.principal = partner.principal;
    } catch (error) {
      if (error instanceof AppError && error.code === 'invalid_token') {
        reply.header('WWW-Authenticate', 'Basic realm="Slotwise partners", charset="UTF-8"');
      }
      throw error;
    }
  });
  app.addHook('preValidation', async (request) => {
    request.body = snakeKeys(request.body);
  });
  // The spec's status table: an invalid argument is 400, where this API says 422.
  app.setErrorHandler((error: FastifyError | AppError, _request, _reply) => {
    if ('validation' in error && error.validation) throw new AppError('bad_request', error.message);
    if (error instanceof AppError && error.code === 'validation_error') {
      throw new AppError('bad_request', error.message);
    }
    // A value the database cannot take as its type (class 22, data exception) is a bad argument too.
    if (/^22/.test(String((error as { code?: unknown }).code ?? ''))) {
      throw new AppError('bad_request', 'a value in the request is malformed or out of range');
    }
    throw error;
  });

  /**
   * The merchant a call names, on whose share of the database the call then counts; a call that
   * writes acts as the partner at that business, so its change is announced to the caches.
   */
  const merchantFor = async (request: FastifyRequest, merchantId: string, writes = false) => {
    const merchant = await merchantOf(deps, partnerOf(request), merchantId, app.clock.now());
    if (writes) request.principal = merchant.caller;
    chargeToBusiness(request, merchant.caller.businessId);
    return merchant;
  };

  const v3 = `${MAPS_BOOKING_BASE}/v3`;
  /** A route of the spec: its method's name, what it answers, the request's shape and an example of it. */
  const rpc = <B extends TSchema>(
    operationId: string,
    summary: string,
    body: B,
    sample: Static<B>,
    writes = false,
  ) => ({
    onRequest: partnerGuard,
    config: writes ? { writes: 'bookings' as const } : {},
    schema: {
      operationId,
      tags: TAGS,
      summary,
      security: PARTNER_SECURITY,
      body: example(body, sample),
      response: { 200: SpecAnswer },
    },
  });

  const feeds = new AvailabilityFeed(feedDeps);
  /** A feed, or a bodiless 304 when the partner holds its data already (If-None-Match). */
  const sendFeed = (request: FastifyRequest, reply: FastifyReply, answer: Feed) => {
    reply.header('ETag', answer.etag).header('Cache-Control', 'private, no-cache');
    if (matchesAny(request.headers['if-none-match'], answer.etag)) return reply.code(304).send();
    return reply.type('application/json; charset=utf-8').send(answer.text);
  };
  const feedRoute = (operationId: string, summary: string) => ({
    onRequest: partnerGuard,
    schema: {
      operationId,
      tags: TAGS,
      summary,
      security: PARTNER_SECURITY,
      response: {
        200: SpecAnswer,
        304: Type.Null({ description: 'Not modified: the ETag sent is current' }),
      },
    },
  });

  app.get(
    `${MAPS_BOOKING_BASE}/feeds/merchants.json`,
    feedRoute('mapsBookingMerchantsFeed', 'The merchant feed: the businesses listed with the partner'),
    async (request, reply) =>
      sendFeed(request, reply, await merchantsFeed(feedDeps, partnerOf(request), app.clock.now())),
  );

  app.get(
    `${MAPS_BOOKING_BASE}/feeds/services.json`,
    feedRoute('mapsBookingServicesFeed', "The services feed: each merchant's reservation or services"),
    async (request, reply) =>
      sendFeed(request, reply, await servicesFeed(feedDeps, partnerOf(request), app.clock.now())),
  );

  const availabilityRoute = feedRoute(
    'mapsBookingAvailabilityFeed',
    'The availability feed: one merchant per shard, its next 30 days for every party it takes online',
  );
  app.get(
    `${MAPS_BOOKING_BASE}/feeds/availability.json`,
    {
      ...availabilityRoute,
      schema: {
        ...availabilityRoute.schema,
        querystring: Type.Object(
          {
            shard: Type.Optional(
              Type.Integer({
                format: 'int32',
                minimum: 0,
                maximum: 10_000,
                default: 0,
                description:
                  'the merchant at this place of the listing (by id); the answer says total_shards',
              }),
            ),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request, reply) =>
      sendFeed(
        request,
        reply,
        await feeds.shard(partnerOf(request), request.query.shard ?? 0, app.clock.now(), (businessId) =>
          chargeToBusiness(request, businessId),
        ),
      ),
  );

  app.get(
    `${v3}/HealthCheck`,
    {
      onRequest: partnerGuard,
      schema: {
        operationId: 'mapsBookingHealthCheck',
        tags: TAGS,
        summary: 'Maps Booking v3 HealthCheck: 200 while the server is up',
        security: PARTNER_SECURITY,
        response: { 200: SpecAnswer },
      },
    },
    async () => ({}),
  );

  app.post(
    `${v3}/BatchAvailabilityLookup`,
    rpc(
      'mapsBookingBatchAvailabilityLookup',
      'Maps Booking v3 BatchAvailabilityLookup: whether each slot time may be booked now',
      BatchAvailabilityLookupRequest,
      { merchant_id: SAMPLE_MERCHANT, slot_time: [SAMPLE_SLOT_TIME] },
    ),
    async (request) => {
      const merchant = await merchantFor(request, request.body.merchant_id);
      return batchAvailabilityLookup(deps, merchant, request.body.slot_time);
    },
  );

  app.post(
    `${v3}/CheckAvailability`,
    rpc(
      'mapsBookingCheckAvailability',
      'Maps Booking v3 CheckAvailability: how many bookings a slot takes now',
      CheckAvailabilityRequest,
      { slot: SAMPLE_SLOT },
    ),
    async (request) => {
      const merchant = await merchantFor(request, request.body.slot.merchant_id);
      return checkAvailability(deps, merchant, request.body.slot);
    },
  );

  app.post(
    `${v3}/CreateBooking`,
    rpc(
      'mapsBookingCreateBooking',
      'Maps Booking v3 CreateBooking: a booking of source partner under every online rule',
      CreateBookingRequest,
      {
        slot: SAMPLE_SLOT,
        user_information: {
          user_id: '1111111111111111111',
          given_name: 'John',
          family_name: 'Smith',
          telephone: '+12091111111',
          email: 'john.smith@example.com',
        },
        idempotency_token: '18307119013960637991',
      },
      true,
    ),
    async (request) => {
      const merchant = await merchantFor(request, request.body.slot.merchant_id, true);
      return createPartnerBooking(deps, merchant, partnerOf(request), request.body, request, app.clock.now());
    },
  );

  app.post(
    `${v3}/UpdateBooking`,
    rpc(
      'mapsBookingUpdateBooking',
      "Maps Booking v3 UpdateBooking: cancel, or change the start or the party, under a guest's rules",
      UpdateBookingRequest,
      { booking: { booking_id: SAMPLE_BOOKING, slot: { start_sec: '1796637600', duration_sec: '5400' } } },
      true,
    ),
    async (request) => updatePartnerBooking(deps, partnerOf(request), request.body, request, app.clock.now()),
  );

  app.post(
    `${v3}/GetBookingStatus`,
    rpc(
      'mapsBookingGetBookingStatus',
      "Maps Booking v3 GetBookingStatus: the status of the partner's booking",
      GetBookingStatusRequest,
      { booking_id: SAMPLE_BOOKING },
    ),
    async (request) => bookingStatus(deps, partnerOf(request), request.body.booking_id, request),
  );

  app.post(
    `${v3}/ListBookings`,
    rpc(
      'mapsBookingListBookings',
      "Maps Booking v3 ListBookings: the partner's user's bookings still to come",
      ListBookingsRequest,
      { user_id: '1111111111111111111' },
    ),
    async (request) => userBookings(deps, partnerOf(request), request.body.user_id, app.clock.now()),
  );
};
