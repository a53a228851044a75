import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { areaRoutes } from '../platform/change-route.ts';
import { pageOf } from '../platform/pagination.ts';
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
  const routes = areaRoutes(app, { tags: ['Settings'] });

  routes.list('/v1/manage/blackout-dates', {
    operationId: 'listBlackoutDates',
    summary: 'List blackout dates by start date, past ones included',
    item: BlackoutView,
    list: (request) => findBlackouts(app.db, pageOf(request)),
  });

  routes.change('POST', '/v1/manage/blackout-dates', {
    operationId: 'createBlackoutDate',
    summary: 'Close the business on a range of whole days',
    body: example(CreateBody, { start_date: '2026-12-24', end_date: '2026-12-26', reason: 'Christmas' }),
    response: { 201: BlackoutView },
    change: (tx, principal, { body }) => addBlackout(tx, principal, body),
  });

  routes.change('PATCH', '/v1/manage/blackout-dates/:blackout_id', {
    operationId: 'updateBlackoutDate',
    summary: 'Change the dates or the reason of a blackout',
    params: IdParams('blackout_id'),
    body: example(PatchBody, { reason: 'Closed for the holidays' }),
    response: { 200: BlackoutView },
    change: (tx, principal, { params, body }) => changeBlackout(tx, principal, params.blackout_id, body),
  });

  routes.remove('/v1/manage/blackout-dates/:blackout_id', {
    operationId: 'deleteBlackoutDate',
    summary: 'Remove a blackout: the days are bookable again',
    params: IdParams('blackout_id'),
    change: (tx, principal, { params }) => removeBlackout(tx, principal, params.blackout_id),
  });
};
