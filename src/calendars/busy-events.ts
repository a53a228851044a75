import ical, { type VEvent } from 'node-ical';
import { addDays, resolveWallBoundary, wallMidnight, zoneSpan } from '../availability/engine/time.ts';
import { SyncFailed } from './calendar-fetch.ts';

const DAY_MS = 86_400_000;
/** Recurring events are expanded this far ahead; a sync at least daily moves the window on. */
export const IMPORT_HORIZON_MS = 90 * DAY_MS;
/** More busy periods than this in one calendar is refused as too large. */
const MAX_PERIODS = 5_000;

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

/**
 * The busy periods of an iCalendar text from `now` to the horizon: events neither transparent
 * nor cancelled, recurrences expanded (EXDATE and overrides honoured), all-day events as the
 * whole local days of the venue's zone. Throws SyncFailed `parse_error` for text that is not a
 * calendar.
 */
export function busyPeriods(text: string, now: number, timeZone: string): BusyPeriod[] {
  if (!/^\s*BEGIN:VCALENDAR/i.test(text)) throw new SyncFailed('parse_error');
  let components: ReturnType<typeof ical.sync.parseICS>;
  try {
    components = ical.sync.parseICS(text);
  } catch (error) {
    throw new SyncFailed('parse_error', error);
  }
  const periods = new Map<string, BusyPeriod>();
  for (const component of Object.values(components)) {
    if (component?.type !== 'VEVENT' || !component.uid || !component.start) continue;
    let instances: ReturnType<typeof ical.expandRecurringEvent>;
    try {
      instances = ical.expandRecurringEvent(component, {
        from: new Date(now),
        to: new Date(now + IMPORT_HORIZON_MS),
        expandOngoing: true,
      });
    } catch (error) {
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
      if (periods.size > MAX_PERIODS) throw new SyncFailed('too_large');
    }
  }
  return [...periods.values()];
}
