import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { WEBHOOK_EVENTS } from '../engine/webhook-events.ts';
import { principalOf, requireBusiness } from '../platform/access.ts';
import { areaRoutes } from '../platform/change-route.ts';
import { commitWith } from '../platform/idempotency.ts';
import { PageQuery, pageEnvelope, pageOf } from '../platform/pagination.ts';
import { example, IdParams, NonBlankString, Nullable, Timestamp, Uuid } from '../platform/schemas.ts';
import {
  addEndpoint,
  deleteEndpoint,
  listDeliveries,
  listEndpoints,
  retryDelivery,
  rotateSecret,
  sendTestEvent,
} from './webhooks.service.ts';

const EndpointView = Type.Object({
  id: Uuid,
  url: Type.String(),
  description: Nullable(Type.String()),
  events: Type.Array(Type.String()),
  is_active: Type.Boolean(),
  status: Type.Union([Type.Literal('active'), Type.Literal('failing')], {
    description:
      '`failing` once a delivery has used up its retries; `active` again after a delivery succeeds',
  }),
  created_at: Timestamp,
});

const SECRET_DESCRIPTION =
  'signing secret (`whsec_` + base64 of 32 bytes), shown only in this answer: `x-service-signature` is keyed with this whole text, Standard Webhooks signatures with its base64-decoded bytes';

const EndpointWithSecret = Type.Object({
  ...EndpointView.properties,
  secret: Type.String({ description: SECRET_DESCRIPTION }),
});

const RotatedEndpoint = Type.Object({
  ...EndpointWithSecret.properties,
  previous_secret_expires_at: Type.String({
    format: 'date-time',
    description: 'until then deliveries carry a signature with the previous secret too',
  }),
});

const DeliveryStatus = Type.Union([
  Type.Literal('pending'),
  Type.Literal('retrying'),
  Type.Literal('delivered'),
  Type.Literal('failed'),
]);

const DeliveryView = Type.Object({
  id: Uuid,
  event_id: Uuid,
  event_type: Type.String(),
  status: DeliveryStatus,
  attempts: Type.Integer({
    format: 'int32',
    description: 'attempts made since the delivery was created or last re-sent',
  }),
  last_response_code: Nullable(Type.Integer({ format: 'int32' })),
  last_error: Nullable(
    Type.String({
      description:
        'the class of the last failure: `timeout`, `connection_refused`, `connection_error`, `tls_error`, `dns_error`, `url_not_allowed` or `http_<status>`',
    }),
  ),
  next_attempt_at: Nullable(Timestamp),
  delivered_at: Nullable(Timestamp),
  created_at: Timestamp,
});

const EndpointParams = IdParams('endpoint_id');
const admin = requireBusiness({ scope: 'admin' });

export const webhookRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const routes = areaRoutes(app, { tags: ['Webhooks'], read: admin, write: admin });

  routes.route('POST', '/v1/manage/webhooks', {
    config: { sensitive: true },
    operationId: 'createWebhookEndpoint',
    summary: 'Register a webhook endpoint; its signing secret is returned once',
    description: `\`url\` must be https and reach a public address. \`events\`: any of ${WEBHOOK_EVENTS.map((e) => `\`${e}\``).join(', ')}, or \`*\` for all.`,
    body: example(
      Type.Object(
        {
          url: Type.String({ minLength: 1, maxLength: 2048 }),
          events: Type.Array(Type.String({ maxLength: 100 }), {
            minItems: 1,
            maxItems: WEBHOOK_EVENTS.length + 1,
            uniqueItems: true,
          }),
          description: Type.Optional(Nullable(NonBlankString({ maxLength: 500 }))),
        },
        { additionalProperties: false },
      ),
      { url: 'https://example.com/slotwise/webhooks', events: ['booking.created', 'booking.cancelled'] },
    ),
    response: { 201: EndpointWithSecret },
    handler: async (request, reply) =>
      addEndpoint(
        app.webhooks.targets,
        principalOf(request),
        app.webhooks.sealKey,
        request.body,
        commitWith(request, reply, 201),
      ),
  });

  routes.list('/v1/manage/webhooks', {
    operationId: 'listWebhookEndpoints',
    summary: 'List webhook endpoints, oldest first (never their secrets)',
    item: EndpointView,
    list: (request) => listEndpoints(app.db, pageOf(request)),
  });

  routes.remove('/v1/manage/webhooks/:endpoint_id', {
    operationId: 'deleteWebhookEndpoint',
    summary: 'Remove a webhook endpoint; deliveries not yet made are dropped',
    params: EndpointParams,
    change: (tx, principal, { params }) => deleteEndpoint(tx, principal, params.endpoint_id),
  });

  routes.change('POST', '/v1/manage/webhooks/:endpoint_id/rotate-secret', {
    config: { sensitive: true },
    operationId: 'rotateWebhookSecret',
    summary: 'Replace the signing secret; the previous one keeps signing beside it for 24 hours',
    params: EndpointParams,
    response: { 200: RotatedEndpoint },
    change: (tx, principal, { params }) =>
      rotateSecret(tx, principal, app.webhooks.sealKey, params.endpoint_id, app.clock.now()),
  });

  routes.change('POST', '/v1/manage/webhooks/:endpoint_id/test', {
    operationId: 'testWebhookEndpoint',
    summary: 'Send a `webhook.test` event to this endpoint, delivered like any other',
    params: EndpointParams,
    response: { 202: DeliveryView },
    change: (tx, principal, { params }) => sendTestEvent(tx, principal, params.endpoint_id),
  });

  routes.route('GET', '/v1/manage/webhooks/:endpoint_id/deliveries', {
    operationId: 'listWebhookDeliveries',
    summary: "The endpoint's delivery log, newest first",
    params: EndpointParams,
    querystring: Type.Object(
      { ...PageQuery, status: Type.Optional(DeliveryStatus) },
      { additionalProperties: false },
    ),
    response: { 200: pageEnvelope(DeliveryView) },
    handler: async (request) => {
      const { endpoint_id } = request.params;
      return listDeliveries(
        app.db,
        principalOf(request).businessId,
        pageOf(request, endpoint_id),
        request.query.status,
      );
    },
  });

  routes.change('POST', '/v1/manage/webhooks/:endpoint_id/deliveries/:delivery_id/retry', {
    operationId: 'retryWebhookDelivery',
    summary: 'Send a delivery again now (any status), with a fresh retry schedule',
    params: Type.Object({ endpoint_id: Uuid, delivery_id: Uuid }, { additionalProperties: false }),
    response: { 202: DeliveryView },
    change: (tx, principal, { params }) =>
      retryDelivery(tx, principal, params.endpoint_id, params.delivery_id, app.clock.now()),
  });
};
