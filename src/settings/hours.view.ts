import { Type } from 'typebox';
import { hhmm, Nullable, TimeString } from '../platform/schemas.ts';
import type { StoredHoursRow } from './hours.queries.ts';

export const HoursRowView = Type.Object({
  day_of_week: Type.Integer({
    format: 'int32',
    minimum: 0,
    maximum: 6,
    description: '0 = Sunday ... 6 = Saturday',
  }),
  is_open: Type.Boolean(),
  open_time: Nullable(TimeString),
  close_time: Nullable(TimeString),
  last_booking_time: Nullable(TimeString),
});

export interface HoursRowWire {
  day_of_week: number;
  is_open: boolean;
  open_time: string | null;
  close_time: string | null;
  last_booking_time: string | null;
}

/** Always seven rows, Sunday first: a missing day is closed, so a new business is closed all week. */
export function toWeek(rows: StoredHoursRow[]): HoursRowWire[] {
  return Array.from({ length: 7 }, (_, day) => {
    const row = rows.find((r) => r.day_of_week === day);
    if (!row?.is_open) {
      return { day_of_week: day, is_open: false, open_time: null, close_time: null, last_booking_time: null };
    }
    return {
      day_of_week: day,
      is_open: true,
      open_time: row.open_time && hhmm(row.open_time),
      close_time: row.close_time && hhmm(row.close_time),
      last_booking_time: row.last_booking_time && hhmm(row.last_booking_time),
    };
  });
}
