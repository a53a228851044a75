import { Type } from 'typebox';
import { DateString, Nullable, Timestamp, Uuid } from '../platform/schemas.ts';
import type { BlackoutRow } from './blackouts.queries.ts';

export const BlackoutView = Type.Object({
  id: Uuid,
  start_date: DateString,
  end_date: DateString,
  reason: Nullable(Type.String()),
  is_full_day: Type.Boolean(),
  created_at: Timestamp,
});

/** Blackouts always cover whole days. */
export const toBlackoutView = (row: BlackoutRow) => ({
  id: row.id,
  start_date: row.start_date,
  end_date: row.end_date,
  reason: row.reason,
  is_full_day: true,
  created_at: row.created_at.toISOString(),
});
