import { type Static, Type } from 'typebox';
import { hhmm, NonBlankString, Nullable, TimeString, Uuid } from '../platform/schemas.ts';
import type { StoredPeriod } from './periods.queries.ts';
import { turnTimesInOrder } from './settings.queries.ts';
import { SettingsFields } from './settings.view.ts';

/**
 * A service period's fields, declared once: as a client sends them (optional ones may be left
 * out) and, all present, as the API shows them. A new field is a line here and its column in a
 * migration: the stored row, the answer and what is written follow from this list.
 */
const PeriodFields = {
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
};

export const PeriodBody = Type.Object(
  {
    id: Type.Optional({ ...Uuid, description: "keeps a period's id; a new period gets one" }),
    ...PeriodFields,
  },
  { additionalProperties: false },
);

export const PeriodView = Type.Required(Type.Object({ id: Uuid, ...PeriodFields }), { $id: 'ServicePeriod' });

export type PeriodInput = Static<typeof PeriodBody>;
export type PeriodWire = Static<typeof PeriodView>;

/** The fields of a period besides its id, in the order the API shows them. */
export const PERIOD_FIELDS = Object.keys(PeriodFields) as (keyof typeof PeriodFields)[];

export const toPeriodView = (period: StoredPeriod): PeriodWire => ({
  ...(Object.fromEntries(PERIOD_FIELDS.map((field) => [field, period[field]])) as PeriodWire),
  id: period.id,
  start_time: hhmm(period.start_time),
  end_time: hhmm(period.end_time),
  last_start_time: period.last_start_time && hhmm(period.last_start_time),
  turn_times: period.turn_times && turnTimesInOrder(period.turn_times),
});
