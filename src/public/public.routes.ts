import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { assertVisibleTo, optionalCredential } from '../platform/access.ts';
import { DateString, IdParams, Nullable, PartySize, Uuid } from '../platform/schemas.ts';
import { HoursRowView } from '../settings/hours.view.ts';
import { MessageFields, ProfileFields, SettingsFields } from '../settings/settings.view.ts';
import { cachePublicRead } from './http-cache.http.ts';
import { businessBySlug, publicBlackouts, publicHours } from './public.service.ts';
import { WIDGET_SETTINGS } from './public.view.ts';

/** Who the business is and the settings a booking widget sets itself up with, in one answer. */
const BusinessInfo = Type.Object({
  id: Uuid,
  name: Type.String(),
  slug: Type.String(),
  ...(Object.fromEntries(WIDGET_SETTINGS.map((field) => [field, SettingsFields[field]])) as Pick<
    typeof SettingsFields,
    (typeof WIDGET_SETTINGS)[number]
  >),
  max_online_party_size: PartySize({
    description:
      "the largest party that may book online: the venue's own limit, else max_capacity cut to the largest party an active table or combination seats; a larger one (up to max_capacity) is asked to call `phone` instead",
  }),
  ...ProfileFields,
  guest_emails_enabled: MessageFields.guest_emails_enabled,
  is_sandbox: Type.Boolean({
    description:
      'a sandbox business, for trying things out: its bookings are not real, and a widget shows it in test mode',
  }),
});
const PublicBlackout = Type.Object({
  start_date: DateString,
  end_date: DateString,
  reason: Nullable(Type.String()),
});

const NotModified = Type.Null({ description: 'Not modified: the ETag sent in If-None-Match is current' });
const PUBLIC_READ = { onRequest: optionalCredential, onSend: cachePublicRead, config: { publishable: true } };
const PUBLIC_SCHEMA = { tags: ['Public'], security: [] };

/** Reads a booking widget makes without credentials; a credential that is sent must still be valid. */
export const publicRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/public/business/:slug',
    {
      ...PUBLIC_READ,
      schema: {
        operationId: 'getPublicBusiness',
        ...PUBLIC_SCHEMA,
        summary:
          'A business by its slug (or id): id, name, slug, the settings a booking widget needs and what a guest sees of the venue',
        params: Type.Object(
          { slug: Type.String({ minLength: 1, maxLength: 200 }) },
          { additionalProperties: false },
        ),
        response: { 200: BusinessInfo, 304: NotModified },
      },
    },
    async (request) => {
      const business = await businessBySlug(app.db, request.params.slug);
      assertVisibleTo(request, business.id);
      return business;
    },
  );

  for (const [path, operationId] of [
    ['/v1/public/hours/:business_id', 'getPublicHours'],
    ['/v1/availability/hours/:business_id', 'getAvailabilityHours'],
  ] as const) {
    app.get(
      path,
      {
        ...PUBLIC_READ,
        schema: {
          ...PUBLIC_SCHEMA,
          operationId,
          summary: 'Weekly operating hours: seven rows, Sunday (0) first',
          params: IdParams('business_id'),
          response: { 200: Type.Array(HoursRowView), 304: NotModified },
        },
      },
      async (request) => publicHours(app.db, request.params.business_id),
    );
  }

  app.get(
    '/v1/public/blackout-dates/:business_id',
    {
      ...PUBLIC_READ,
      schema: {
        operationId: 'getPublicBlackoutDates',
        ...PUBLIC_SCHEMA,
        summary: "Blackout ranges ending today or later in the business's time zone, by start date",
        params: IdParams('business_id'),
        response: { 200: Type.Array(PublicBlackout), 304: NotModified },
      },
    },
    async (request) => publicBlackouts(app.db, request.params.business_id, app.clock.now()),
  );
};
