import { randomUUID } from 'node:crypto';
import { type AuditActor, recordAudit } from '../audit/audit.service.ts';
import { hoursMinutes, minutesOf, periodMinutes } from '../engine/index.ts';
import type { Executor, Tx } from '../platform/db.ts';
import { type FieldError, validationError } from '../platform/errors.ts';
import { unknownResourceIds } from '../resources/resources.queries.ts';
import { loadHours, toEngineHours } from './hours.queries.ts';
import { loadPeriods, type NewPeriod, replacePeriods } from './periods.queries.ts';
import { PERIOD_FIELDS, type PeriodInput, type PeriodWire, toPeriodView } from './periods.view.ts';
import { byPartySize, turnTimeRefusals } from './settings.service.ts';

const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** Each id once, in the database's spelling, so an id sent twice or in capitals is one resource. */
const uniqueIds = (ids: readonly string[]) => [...new Set(ids.map((id) => id.toLowerCase()))];

/**
 * The rules of the periods the schema cannot state: each lies inside the operating hours of each
 * of its weekdays, its last start inside itself, no two of one weekday overlap, turn times as the
 * business's, resources active ones of the business.
 */
async function checkPeriods(executor: Executor, businessId: string, periods: readonly PeriodInput[]) {
  const fields: FieldError[] = [];
  const hours = (await loadHours(executor, businessId)).map(toEngineHours);
  // One query for every period's resources.
  const inactive = new Set(
    await unknownResourceIds(executor, businessId, uniqueIds(periods.flatMap((p) => p.resource_ids ?? [])), {
      activeOnly: true,
    }),
  );
  const ids = new Map<string, number>();
  /** Per weekday, the periods placed so far in minutes from that day's midnight. */
  const placed = new Map<number, { index: number; startMinute: number; endMinute: number }[]>();
  for (const [index, period] of periods.entries()) {
    const at = `periods[${index}]`;
    const named = `"${period.name}"`;
    if (period.id !== undefined) {
      const id = period.id.toLowerCase();
      const first = ids.get(id);
      if (first !== undefined)
        fields.push({ field: `${at}.id`, message: `is also the id of periods[${first}]` });
      else ids.set(id, index);
    }
    if (period.last_start_time) {
      const start = minutesOf(period.start_time)!;
      const end = minutesOf(period.end_time)!;
      const last = minutesOf(period.last_start_time)!;
      const inside = end > start ? last >= start && last <= end : last >= start || last <= end;
      if (!inside) {
        fields.push({
          field: `${at}.last_start_time`,
          message: `must lie between start_time ${period.start_time} and end_time ${period.end_time}`,
        });
      }
    }
    for (const day of period.days_of_week) {
      const open = hoursMinutes(hours.find((row) => row.dayOfWeek === day));
      if (!open) {
        fields.push({
          field: at,
          message: `${named} falls on ${DAY_NAMES[day]}, when the business is closed`,
        });
        continue;
      }
      const span = periodMinutes({ startTime: period.start_time, endTime: period.end_time }, open);
      if (span.startMinute < open.openMinute || span.endMinute > open.closeMinute) {
        fields.push({ field: at, message: `${named} lies outside the operating hours of ${DAY_NAMES[day]}` });
        continue;
      }
      const sameDay = placed.get(day) ?? [];
      const clash = sameDay.find(
        (other) => other.startMinute < span.endMinute && span.startMinute < other.endMinute,
      );
      if (clash) {
        fields.push({
          field: at,
          message: `${named} overlaps "${periods[clash.index]!.name}" (periods[${clash.index}]) on ${DAY_NAMES[day]}`,
        });
      }
      placed.set(day, [...sameDay, { index, ...span }]);
    }
    if (period.turn_times) fields.push(...turnTimeRefusals(period.turn_times, `${at}.turn_times`));
    const notActive = uniqueIds(period.resource_ids ?? []).filter((id) => inactive.has(id));
    if (notActive.length) {
      fields.push({
        field: `${at}.resource_ids`,
        message: `not active resources of this business: ${notActive.join(', ')}`,
      });
    }
  }
  if (fields.length) throw validationError(fields);
}

/** A period as it is stored: the fields sent (a field left out takes its column's default), in order. */
const toStored = (period: PeriodInput): NewPeriod => ({
  ...(Object.fromEntries(
    PERIOD_FIELDS.filter((field) => period[field] !== undefined).map((field) => [field, period[field]]),
  ) as Omit<PeriodInput, 'id' | 'turn_times'>),
  id: period.id?.toLowerCase() ?? randomUUID(),
  days_of_week: [...period.days_of_week].sort((a, b) => a - b),
  turn_times: period.turn_times ? JSON.stringify(byPartySize(period.turn_times)) : null,
  resource_ids: uniqueIds(period.resource_ids ?? []),
});

/** The service periods of a business as the API shows them. */
export const listPeriods = async (executor: Executor, businessId: string): Promise<PeriodWire[]> =>
  (await loadPeriods(executor, businessId)).map(toPeriodView);

/** Replaces every period of the business; the audit row holds the periods before and after. */
export async function changePeriods(
  tx: Tx,
  actor: AuditActor,
  periods: PeriodInput[],
): Promise<PeriodWire[]> {
  await checkPeriods(tx, actor.businessId, periods);
  const before = await listPeriods(tx, actor.businessId);
  await replacePeriods(tx, actor.businessId, periods.map(toStored));
  const after = await listPeriods(tx, actor.businessId);
  await recordAudit(tx, actor, {
    action: 'settings.periods_updated',
    entityType: 'business',
    entityId: actor.businessId,
    before: { periods: before },
    after: { periods: after },
  });
  return after;
}
