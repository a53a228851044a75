import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireBusiness } from '../platform/access.ts';
import { areaRoutes } from '../platform/change-route.ts';
import { PageQuery, pageEnvelope, pageOf } from '../platform/pagination.ts';
import { Uuid } from '../platform/schemas.ts';
import { businessMessages } from './messages.service.ts';
import { MessageView } from './messages.view.ts';

export const messageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const routes = areaRoutes(app, { tags: ['Messages'] });

  routes.route('GET', '/v1/manage/messages', {
    onRequest: requireBusiness({ scope: 'read', staff: true }),
    operationId: 'listMessages',
    summary: "The business's guest and venue messages, newest first",
    description:
      "Every email and SMS the business sent or is sending, with its recipient masked and how it fared. `booking_id` lists one booking's messages (a booking's detail links here in its `Link` header).",
    querystring: Type.Object(
      { ...PageQuery, booking_id: Type.Optional(Uuid) },
      { additionalProperties: false },
    ),
    response: { 200: pageEnvelope(MessageView) },
    handler: async (request) => businessMessages(app.db, pageOf(request), request.query.booking_id),
  });
};
