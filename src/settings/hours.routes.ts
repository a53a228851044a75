import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../platform/access.ts';
import { areaRoutes, bareArrayAs } from '../platform/change-route.ts';
import { example, Nullable, TimeString } from '../platform/schemas.ts';
import { loadWeek, replaceWeek } from './hours.service.ts';
import { HoursRowView } from './hours.view.ts';

const HoursRowInput = Type.Object(
  {
    day_of_week: Type.Integer({
      format: 'int32',
      minimum: 0,
      maximum: 6,
      description: '0 = Sunday ... 6 = Saturday',
    }),
    is_open: Type.Boolean(),
    open_time: Type.Optional(Nullable(TimeString)),
    close_time: Type.Optional(
      Nullable({
        ...TimeString,
        description: 'HH:MM; at or before open_time means the window runs past midnight',
      }),
    ),
    last_booking_time: Type.Optional(
      Nullable({
        ...TimeString,
        description: 'latest start; defaults to close_time minus the booking length',
      }),
    ),
  },
  { additionalProperties: false },
);

const WeekBody = Type.Object(
  { hours: Type.Array(HoursRowInput, { minItems: 7, maxItems: 7 }) },
  {
    additionalProperties: false,
    description: 'Seven rows, one per day; a bare array of the seven rows is accepted as well',
  },
);

const Week = Type.Array(HoursRowView, { minItems: 7, maxItems: 7 });

export const hoursRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const routes = areaRoutes(app, { tags: ['Settings'] });

  routes.route('GET', '/v1/manage/hours', {
    operationId: 'getHours',
    summary: 'Weekly operating hours: seven rows, Sunday (0) first; a day never set is closed',
    response: { 200: Week },
    handler: async (request) => loadWeek(app.db, principalOf(request).businessId),
  });

  routes.change('PUT', '/v1/manage/hours', {
    preValidation: bareArrayAs('hours'),
    operationId: 'replaceHours',
    summary: 'Replace the hours of all seven days',
    body: example(WeekBody, {
      hours: [0, 1, 2, 3, 4, 5, 6].map((day_of_week) => ({
        day_of_week,
        is_open: day_of_week !== 1,
        open_time: '17:00',
        close_time: '23:00',
      })),
    }),
    response: { 200: Week },
    change: (tx, principal, { body }) => replaceWeek(tx, principal, body.hours),
  });
};
