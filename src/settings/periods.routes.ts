import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../platform/access.ts';
import { areaRoutes, bareArrayAs } from '../platform/change-route.ts';
import { example } from '../platform/schemas.ts';
import { changePeriods, listPeriods } from './periods.service.ts';
import { PeriodBody, PeriodView } from './periods.view.ts';

const PeriodsBody = Type.Object(
  { periods: Type.Array(PeriodBody, { maxItems: 50 }) },
  {
    additionalProperties: false,
    description: 'Every period of the business; a bare array of them is accepted as well',
  },
);

const Periods = Type.Array(PeriodView);

export const periodsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const routes = areaRoutes(app, { tags: ['Settings'] });

  routes.route('GET', '/v1/manage/service-periods', {
    operationId: 'getServicePeriods',
    summary:
      'Service periods (lunch, dinner): a weekday that has any is bookable only inside them, one without inside its operating hours',
    response: { 200: Periods },
    handler: async (request) => listPeriods(app.db, principalOf(request).businessId),
  });

  routes.change('PUT', '/v1/manage/service-periods', {
    preValidation: bareArrayAs('periods'),
    operationId: 'replaceServicePeriods',
    summary:
      "Replace every service period: each inside its weekdays' operating hours, none overlapping another of the same weekday",
    body: example(PeriodsBody, {
      periods: [
        {
          name: 'Lunch',
          days_of_week: [2, 3, 4, 5, 6],
          start_time: '12:00',
          end_time: '14:30',
          slot_interval_minutes: 15,
        },
        {
          name: 'Dinner',
          days_of_week: [2, 3, 4, 5, 6],
          start_time: '18:00',
          end_time: '22:30',
          max_covers_per_slot: 20,
        },
      ],
    }),
    response: { 200: Periods },
    change: (tx, principal, { body }) => changePeriods(tx, principal, body.periods),
  });
};
