import { Type } from 'typebox';
import type { Executor } from '../platform/db.ts';
import { DateString, Nullable, Timestamp, Uuid } from '../platform/schemas.ts';

export const BlackoutView = Type.Object({
  id: Uuid,
  start_date: DateString,
  end_date: DateString,
  reason: Nullable(Type.String()),
  is_full_day: Type.Boolean(),
  created_at: Timestamp,
});

export const BLACKOUT_COLUMNS = ['id', 'start_date', 'end_date', 'reason', 'created_at'] as const;

export interface BlackoutRow {
  id: string;
  start_date: string;
  end_date: string;
  reason: string | null;
  created_at: Date;
}

/** Blackouts always cover whole days. */
export const toBlackoutView = (row: BlackoutRow) => ({
  id: row.id,
  start_date: row.start_date,
  end_date: row.end_date,
  reason: row.reason,
  is_full_day: true,
  created_at: row.created_at.toISOString(),
});

/** Ranges that end on `date` or later, by start date: what a booking widget still needs to show. */
export async function findBlackoutsEndingFrom(executor: Executor, businessId: string, date: string) {
  return executor
    .selectFrom('blackout_dates')
    .select(['start_date', 'end_date', 'reason'])
    .where('business_id', '=', businessId)
    .where('end_date', '>=', date)
    .orderBy('start_date')
    .orderBy('id')
    .execute();
}
