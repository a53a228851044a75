import { type AuditActor, recordAudit } from '../audit/audit.service.ts';
import { minutesOf } from '../engine/index.ts';
import type { Executor, Tx } from '../platform/db.ts';
import { type FieldError, validationError } from '../platform/errors.ts';
import { loadHours, upsertWeek } from './hours.queries.ts';
import { type HoursRowWire, toWeek } from './hours.view.ts';

export interface HoursRowInput {
  day_of_week: number;
  is_open: boolean;
  open_time?: string | null;
  close_time?: string | null;
  last_booking_time?: string | null;
}

/** Whether `time` lies in the window from `open` to `close`, both ends included; close <= open runs past midnight. */
function withinWindow(time: string, open: string, close: string): boolean {
  // The schema has checked the format, so every time parses; the engine compares whole minutes too.
  const [t, o, c] = [minutesOf(time)!, minutesOf(open)!, minutesOf(close)!];
  return c > o ? t >= o && t <= c : t >= o || t <= c;
}

/** The rules of a week the schema cannot state; returns the rows as they are stored. */
function checkWeek(rows: HoursRowInput[]): HoursRowWire[] {
  const fields: FieldError[] = [];
  const seen = new Set<number>();
  const week = rows.map((row, index) => {
    const at = `hours[${index}]`;
    if (seen.has(row.day_of_week)) {
      fields.push({ field: `${at}.day_of_week`, message: `day ${row.day_of_week} appears more than once` });
    }
    seen.add(row.day_of_week);
    if (!row.is_open) {
      return {
        day_of_week: row.day_of_week,
        is_open: false,
        open_time: null,
        close_time: null,
        last_booking_time: null,
      };
    }
    const { open_time: open, close_time: close, last_booking_time: last = null } = row;
    if (!open) fields.push({ field: `${at}.open_time`, message: 'is required on an open day' });
    if (!close) fields.push({ field: `${at}.close_time`, message: 'is required on an open day' });
    if (open && close && last && !withinWindow(last, open, close)) {
      fields.push({
        field: `${at}.last_booking_time`,
        message: `must lie between open_time ${open} and close_time ${close}`,
      });
    }
    return {
      day_of_week: row.day_of_week,
      is_open: true,
      open_time: open ?? null,
      close_time: close ?? null,
      last_booking_time: last,
    };
  });
  if (fields.length) throw validationError(fields);
  return week;
}

/** The week of a business as the API shows it. */
export const loadWeek = async (executor: Executor, businessId: string) =>
  toWeek(await loadHours(executor, businessId));

/** Replaces the hours of all seven days; the audit row holds the week before and after. */
export async function replaceWeek(tx: Tx, actor: AuditActor, rows: HoursRowInput[]): Promise<HoursRowWire[]> {
  const week = checkWeek(rows);
  const before = await loadWeek(tx, actor.businessId);
  await upsertWeek(tx, actor.businessId, week);
  const after = await loadWeek(tx, actor.businessId);
  await recordAudit(tx, actor, {
    action: 'settings.hours_updated',
    entityType: 'business',
    entityId: actor.businessId,
    before: { hours: before },
    after: { hours: after },
  });
  return after;
}
