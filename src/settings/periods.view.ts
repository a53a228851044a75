import { Type } from 'typebox';
import { hhmm, Nullable, TimeString, Uuid } from '../platform/schemas.ts';
import type { TurnTime } from '../schema.ts';
import type { StoredPeriod } from './periods.queries.ts';
import { turnTimesInOrder } from './settings.queries.ts';

export const PeriodView = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    days_of_week: Type.Array(Type.Integer({ format: 'int32', minimum: 0, maximum: 6 }), {
      description: '0 = Sunday ... 6 = Saturday',
    }),
    start_time: TimeString,
    end_time: TimeString,
    last_start_time: Nullable(TimeString),
    slot_interval_minutes: Nullable(Type.Integer({ format: 'int32' })),
    turn_times: Nullable(
      Type.Array(
        Type.Object({
          min_party: Type.Integer({ format: 'int32' }),
          max_party: Type.Integer({ format: 'int32' }),
          duration_minutes: Type.Integer({ format: 'int32' }),
        }),
        { description: "the period's booking lengths by party size; null takes the business's turn_times" },
      ),
    ),
    resource_ids: Type.Array(Uuid, { description: 'the resources bookable in the period; empty means all' }),
    max_covers_per_slot: Nullable(
      Type.Integer({
        format: 'int32',
        description: 'the most guests that may start at one grid time; null: no cap',
      }),
    ),
    max_bookings_per_slot: Nullable(
      Type.Integer({
        format: 'int32',
        description: 'the most bookings that may start at one grid time; null: no cap',
      }),
    ),
  },
  { $id: 'ServicePeriod' },
);

export interface PeriodWire {
  id: string;
  name: string;
  days_of_week: number[];
  start_time: string;
  end_time: string;
  last_start_time: string | null;
  slot_interval_minutes: number | null;
  turn_times: TurnTime[] | null;
  resource_ids: string[];
  max_covers_per_slot: number | null;
  max_bookings_per_slot: number | null;
}

export const toPeriodView = (period: StoredPeriod): PeriodWire => ({
  id: period.id,
  name: period.name,
  days_of_week: period.days_of_week,
  start_time: hhmm(period.start_time),
  end_time: hhmm(period.end_time),
  last_start_time: period.last_start_time && hhmm(period.last_start_time),
  slot_interval_minutes: period.slot_interval_minutes,
  turn_times: period.turn_times && turnTimesInOrder(period.turn_times),
  resource_ids: period.resource_ids,
  max_covers_per_slot: period.max_covers_per_slot,
  max_bookings_per_slot: period.max_bookings_per_slot,
});
