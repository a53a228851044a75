import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf, requireBusiness } from '../platform/access.ts';
import { commitReply } from '../platform/idempotency.ts';
import { example, NonBlankString, Nullable, TimeString, Uuid } from '../platform/schemas.ts';
import { changePeriods, listPeriods } from './periods.service.ts';
import { PeriodView } from './periods.view.ts';
import { SettingsFields } from './settings.view.ts';

const PeriodInput = Type.Object(
  {
    id: Type.Optional({ ...Uuid, description: "keeps a period's id; a new period gets one" }),
    name: NonBlankString({ maxLength: 60 }),
    days_of_week: Type.Array(
      Type.Integer({ format: 'int32', minimum: 0, maximum: 6, description: '0 = Sunday ... 6 = Saturday' }),
      {
        minItems: 1,
        maxItems: 7,
        uniqueItems: true,
      },
    ),
    start_time: { ...TimeString, description: 'HH:MM; the grid of the period starts here' },
    end_time: {
      ...TimeString,
      description: 'HH:MM; at or before start_time means the period runs past midnight',
    },
    last_start_time: Type.Optional(
      Nullable({ ...TimeString, description: 'latest start; defaults to end_time minus the booking length' }),
    ),
    slot_interval_minutes: Type.Optional(
      Nullable({
        ...SettingsFields.default_slot_interval_minutes,
        description: "gap between the period's slot starts; defaults to default_slot_interval_minutes",
      }),
    ),
    turn_times: Type.Optional(
      Nullable({
        ...SettingsFields.turn_times,
        description: "the period's booking lengths by party size, as the setting turn_times; defaults to it",
      }),
    ),
    resource_ids: Type.Optional(
      Type.Array(Uuid, {
        maxItems: 500,
        description: 'the active resources bookable in the period; empty means all',
      }),
    ),
    max_covers_per_slot: Type.Optional(
      Nullable(
        Type.Integer({
          format: 'int32',
          minimum: 1,
          maximum: 1000,
          description:
            "pacing: the most guests (sum of party sizes) of the business's bookings that may start at one grid time of the period; null: no cap",
        }),
      ),
    ),
    max_bookings_per_slot: Type.Optional(
      Nullable(
        Type.Integer({
          format: 'int32',
          minimum: 1,
          maximum: 500,
          description:
            "pacing: the most of the business's bookings that may start at one grid time of the period; null: no cap",
        }),
      ),
    ),
  },
  { additionalProperties: false },
);

const PeriodsBody = Type.Object(
  { periods: Type.Array(PeriodInput, { maxItems: 50 }) },
  {
    additionalProperties: false,
    description: 'Every period of the business; a bare array of them is accepted as well',
  },
);

const Periods = Type.Array(PeriodView);

export const periodsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/manage/service-periods',
    {
      onRequest: requireBusiness({ scope: 'read' }),
      schema: {
        operationId: 'getServicePeriods',
        tags: ['Settings'],
        summary:
          'Service periods (lunch, dinner): a weekday that has any is bookable only inside them, one without inside its operating hours',
        response: { 200: Periods },
      },
    },
    async (request) => listPeriods(app.db, principalOf(request).businessId),
  );

  app.put(
    '/v1/manage/service-periods',
    {
      onRequest: requireBusiness({ scope: 'write' }),
      // A bare array is the documented form; wrapping it lets one schema name fields as `periods[1].end_time`.
      preValidation: async (request) => {
        if (Array.isArray(request.body)) request.body = { periods: request.body };
      },
      schema: {
        operationId: 'replaceServicePeriods',
        tags: ['Settings'],
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
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      return commitReply(request, reply, 200, (tx) => changePeriods(tx, principal, request.body.periods));
    },
  );
};
