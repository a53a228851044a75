import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireBusiness } from '../platform/access.ts';
import { areaRoutes } from '../platform/change-route.ts';
import { pageOf } from '../platform/pagination.ts';
import { errorResponses, example, IdParams, NonBlankString, Timestamp, Uuid } from '../platform/schemas.ts';
import { createPartner, listPartners, MAX_LISTED, unlistPartner } from './partners.service.ts';

const PartnerView = Type.Object({
  id: Uuid,
  name: Type.String(),
  username: Type.String({ description: 'the HTTP Basic user name the partner calls with' }),
  created_at: Timestamp,
});

export const partnerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const routes = areaRoutes(app, {
    tags: ['Partners'],
    read: requireBusiness({ scope: 'admin' }),
    write: requireBusiness({ scope: 'admin' }),
  });
  routes.change('POST', '/v1/manage/partners', {
    config: { sensitive: true },
    operationId: 'createPartner',
    summary:
      'List the business with a reservation partner: its HTTP Basic credentials, the password shown once',
    description:
      'The partner calls the booking server under `/partners/maps-booking/v3/` and reads the feeds under `/partners/maps-booking/feeds/` with these credentials, for the businesses listed with it only (docs/partners.md). `business_ids` (default: this business) may name other businesses only for their developer, with a developer token.',
    body: example(
      Type.Object(
        {
          name: NonBlankString({ maxLength: 100 }),
          business_ids: Type.Optional(
            Type.Array(Uuid, { minItems: 1, maxItems: MAX_LISTED, uniqueItems: true }),
          ),
        },
        { additionalProperties: false },
      ),
      { name: 'Maps reservations' },
    ),
    response: {
      201: Type.Object({
        ...PartnerView.properties,
        password: Type.String({
          description: 'the HTTP Basic password: shown this once, kept only as a hash',
        }),
        business_ids: Type.Array(Uuid),
      }),
    },
    change: (tx, principal, { body }) => createPartner(tx, principal, body),
  });

  routes.list('/v1/manage/partners', {
    operationId: 'listPartners',
    summary: 'The reservation partners the business is listed with (never a password)',
    item: Type.Object({ ...PartnerView.properties, listed_at: Timestamp }),
    list: (request) => listPartners(app.db, pageOf(request)),
  });

  routes.remove('/v1/manage/partners/:partner_id', {
    operationId: 'unlistPartner',
    summary: "End the business's listing with a partner: its credentials no longer reach the business",
    description: 'The bookings it made stay, with their source `partner`.',
    params: IdParams('partner_id'),
    refusals: errorResponses(404),
    change: (tx, principal, { params }) => unlistPartner(tx, principal, params.partner_id),
  });
};
