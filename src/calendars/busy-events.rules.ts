import ical, { type RRule, type VEvent } from 'node-ical';
import { addDays, resolveWallBoundary, wallMidnight, zoneSpan } from '../engine/time.ts';
import { SyncFailed } from './sync-failure.model.ts';

const DAY_MS = 86_400_000;
/** Recurring events are expanded this far ahead; a sync at least daily moves the window on. */
export const IMPORT_HORIZON_MS = 90 * DAY_MS;
/** More busy periods than this in one calendar is refused as too large. */
const MAX_PERIODS = 5_000;
/** The budget of one calendar: its events, and the instances they expand to in the window. */
const MAX_EVENTS = 5_000;
const MAX_INSTANCES = 20_000;

export interface BusyPeriod {
  /** The event's UID, and for a recurrence its instant: the same instance keeps its block across syncs. */
  key: string;
  start: number;
  end: number;
}

/** `YYYY-MM-DD` of a DATE value, which node-ical places at midnight of the process's own zone. */
const localDate = (date: Date) =>
  `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;

/** The instant a local day begins in `timeZone` (its first existing minute when midnight is skipped). */
function dayStart(date: string, timeZone: string): number {
  const wall = wallMidnight(date);
  return resolveWallBoundary(zoneSpan(timeZone, wall, wall + DAY_MS), wall);
}

const isBusy = (event: VEvent) =>
  event.transparency !== 'TRANSPARENT' && String(event.status ?? '').toUpperCase() !== 'CANCELLED';

/** rrule-temporal's error when a rule iterates past its cap. */
const PAST_CAP = /^Maximum iterations/;

/**
 * Lets the rule iterate at most `max` times and reports each window's dates to `produced`.
 * node-ical keeps rrule-temporal's rule in `_rrule` and expands through its `between`; left alone,
 * that rule stops only at its own 10,000 iterations, for each event of the file, so the budget of
 * the whole file is set on it (through rrule-temporal's public `with`) before it runs, not
 * checked after.
 */
function capRule(rule: RRule, max: number, produced: (count: number) => void): void {
  type Inner = { between(after: Date, before: Date, inclusive?: boolean): unknown[] };
  const wrapper = rule as unknown as { _rrule: Inner };
  const capped = (wrapper._rrule as Inner & { with(options: { maxIterations: number }): Inner }).with({
    maxIterations: max,
  });
  wrapper._rrule = {
    between(after, before, inclusive) {
      const dates = capped.between(after, before, inclusive);
      produced(dates.length);
      return dates;
    },
  };
}

/**
 * The busy periods of an iCalendar text from `now` to the horizon: events neither transparent
 * nor cancelled, recurrences expanded (EXDATE and overrides honoured), all-day events as the
 * whole local days of the venue's zone. Throws SyncFailed: `parse_error` for text that is not a
 * calendar, `too_complex` past the budget (every event and every instance counts, those skipped
 * afterwards too), `too_large` past 5,000 busy periods. Meant for a worker thread (`calendar-parser.adapter.ts`).
 */
export function busyPeriods(text: string, now: number, timeZone: string): BusyPeriod[] {
  if (!/^\s*BEGIN:VCALENDAR/i.test(text)) throw new SyncFailed('parse_error');
  // Counted on the text, before the parser spends anything on them.
  if ((text.match(/^BEGIN:VEVENT\r?$/gim)?.length ?? 0) > MAX_EVENTS) throw new SyncFailed('too_complex');
  let components: ReturnType<typeof ical.sync.parseICS>;
  try {
    components = ical.sync.parseICS(text);
  } catch (error) {
    throw new SyncFailed('parse_error', error);
  }
  let instanceCount = 0;
  const periods = new Map<string, BusyPeriod>();
  for (const component of Object.values(components)) {
    if (component?.type !== 'VEVENT' || !component.uid || !component.start) continue;
    if (component.rrule) {
      capRule(component.rrule, MAX_INSTANCES - instanceCount, (count) => (instanceCount += count));
    } else instanceCount += 1;
    if (instanceCount > MAX_INSTANCES) throw new SyncFailed('too_complex');
    let instances: ReturnType<typeof ical.expandRecurringEvent>;
    try {
      instances = ical.expandRecurringEvent(component, {
        from: new Date(now),
        to: new Date(now + IMPORT_HORIZON_MS),
        expandOngoing: true,
      });
    } catch (error) {
      if (error instanceof Error && PAST_CAP.test(error.message)) throw new SyncFailed('too_complex', error);
      throw new SyncFailed('parse_error', error);
    }
    for (const instance of instances) {
      if (!isBusy(instance.event)) continue;
      let start = instance.start.getTime();
      let end = instance.end.getTime();
      if (instance.isFullDay) {
        const firstDay = localDate(instance.start);
        // Without a DTEND an all-day event lasts its one day (RFC 5545).
        const dayAfter = end > start ? localDate(instance.end) : addDays(firstDay, 1);
        start = dayStart(firstDay, timeZone);
        end = dayStart(dayAfter, timeZone);
      }
      if (!(end > start) || end <= now || Number.isNaN(start)) continue;
      const recurrence = instance.event.recurrenceid ?? (instance.isRecurring ? instance.start : undefined);
      const key = recurrence ? `${component.uid}|${new Date(recurrence).toISOString()}` : component.uid;
      periods.set(key, { key, start, end });
    }
  }
  // Once the whole file is within the budget: past it, the file is too complex, whatever it holds.
  if (periods.size > MAX_PERIODS) throw new SyncFailed('too_large');
  return [...periods.values()];
}
