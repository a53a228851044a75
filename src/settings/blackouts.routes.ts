import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf, requireBusiness } from '../platform/access.ts';
import { commitReply } from '../platform/idempotency.ts';
import { listRoute, pageOf } from '../platform/pagination.ts';
import { DateString, example, IdParams, Nullable } from '../platform/schemas.ts';
import { addBlackout, changeBlackout, findBlackouts, removeBlackout } from './blackouts.service.ts';
import { BlackoutView } from './blackouts.view.ts';

const Reason = Nullable(
  Type.String({ maxLength: 500, description: 'shown publicly; empty or only white space means none (null)' }),
);

const CreateBody = Type.Object(
  {
    start_date: { ...DateString, description: 'first closed day (inclusive)' },
    end_date: { ...DateString, description: 'last closed day (inclusive), not before start_date' },
    reason: Type.Optional(Reason),
  },
  { additionalProperties: false },
);
const PatchBody = Type.Object(
  {
    start_date: Type.Optional(DateString),
    end_date: Type.Optional(DateString),
    reason: Type.Optional(Reason),
  },
  { additionalProperties: false },
);

export const blackoutRoutes: FastifyPluginAsyncTypebox = async (app) => {
  listRoute(
    app,
    '/v1/manage/blackout-dates',
    {
      onRequest: requireBusiness({ scope: 'read' }),
      operationId: 'listBlackoutDates',
      tags: ['Settings'],
      summary: 'List blackout dates by start date, past ones included',
      item: BlackoutView,
    },
    (request) => findBlackouts(app.db, pageOf(request)),
  );

  app.post(
    '/v1/manage/blackout-dates',
    {
      onRequest: requireBusiness({ scope: 'write' }),
      schema: {
        operationId: 'createBlackoutDate',
        tags: ['Settings'],
        summary: 'Close the business on a range of whole days',
        body: example(CreateBody, { start_date: '2026-12-24', end_date: '2026-12-26', reason: 'Christmas' }),
        response: { 201: BlackoutView },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      return commitReply(request, reply, 201, (tx) => addBlackout(tx, principal, request.body));
    },
  );

  app.patch(
    '/v1/manage/blackout-dates/:blackout_id',
    {
      onRequest: requireBusiness({ scope: 'write' }),
      schema: {
        operationId: 'updateBlackoutDate',
        tags: ['Settings'],
        summary: 'Change the dates or the reason of a blackout',
        params: IdParams('blackout_id'),
        body: example(PatchBody, { reason: 'Closed for the holidays' }),
        response: { 200: BlackoutView },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      return commitReply(request, reply, 200, (tx) =>
        changeBlackout(tx, principal, request.params.blackout_id, request.body),
      );
    },
  );

  app.delete(
    '/v1/manage/blackout-dates/:blackout_id',
    {
      onRequest: requireBusiness({ scope: 'write' }),
      schema: {
        operationId: 'deleteBlackoutDate',
        tags: ['Settings'],
        summary: 'Remove a blackout: the days are bookable again',
        params: IdParams('blackout_id'),
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      return commitReply(request, reply, 204, (tx) =>
        removeBlackout(tx, principal, request.params.blackout_id),
      );
    },
  );
};
