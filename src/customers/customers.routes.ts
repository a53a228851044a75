import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireBusiness } from '../platform/access.ts';
import { PageQuery, pageEnvelope, pageOf } from '../platform/pagination.ts';
import { findCustomers, SEARCH_LENGTH, SEARCH_TIMEOUT_MS } from './customers.service.ts';
import { CustomerView } from './customers.view.ts';

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
                minLength: SEARCH_LENGTH.min,
                maxLength: SEARCH_LENGTH.max,
                description: `partial match on first name, last name, phone or email, whatever the case and accents; a phone number also matches whatever its formatting, in its national or international form. At most ${SEARCH_LENGTH.max} characters, at least ${SEARCH_LENGTH.min} of them besides the spaces around them; \`%\`, \`_\` and \`\\\` match only themselves. A search running longer than ${SEARCH_TIMEOUT_MS / 1000} s is stopped: 503 \`search_timeout\` with \`Retry-After\`.`,
              }),
            ),
            tag: Type.Optional(
              Type.String({ minLength: 1, maxLength: 40, description: 'only guests with this tag' }),
            ),
            ...PageQuery,
          },
          { additionalProperties: false },
        ),
        response: { 200: pageEnvelope(CustomerView) },
      },
    },
    async (request) => findCustomers(app.db, pageOf(request), request.query.search, request.query.tag),
  );
};
