/**
 * A day of the venue as the Today screen draws it: what the API says about the date, turned into
 * minutes from the day's midnight (the venue's wall clock; after midnight is past 1440).
 */
import type { components } from '@slotwise/sdk';
import { addDays, dayOfWeek, instantToWall, minutesOf } from '../../src/engine/time.ts';
import { allPages, call } from '../api.ts';

export type Booking = components['schemas']['Booking'];

export interface Item {
  start: number;
  end: number;
}

export interface BookingItem extends Item {
  booking: Booking;
  /** The other tables a combination holds, by name. */
  joinedWith: string[];
  /**
   * On a row: the other bookings of the class `booking` starts (its service, its start, this
   * resource), drawn as one block with it; empty for any other booking.
   */
  classmates: Booking[];
  /** The seats of the class `booking` is of; null for a booking of no class. */
  seats: number | null;
}

export interface BlockItem extends Item {
  reason: string | null;
  /** Busy time imported from a calendar feed, rather than blocked by staff. */
  imported: boolean;
}

export interface Row {
  id: string;
  name: string;
  capacityMin: number;
  capacityMax: number;
  bookings: BookingItem[];
  blocks: BlockItem[];
}

export interface Section {
  name: string | null;
  rows: Row[];
}

export interface Band extends Item {
  name: string;
}

export interface DayPlan {
  date: string;
  /** The drawn span, whole hours around the opening hours, the periods and the bookings. */
  start: number;
  end: number;
  open: boolean;
  periods: Band[];
  sections: Section[];
  /** The day's bookings in order of their start (cancelled ones left out: they hold no table). */
  bookings: BookingItem[];
}

const HOUR = 60;
const DAY = 1440;

/** `start`-`end` in minutes, an end at or before the start being after midnight. */
function span(start: string, end: string): Item {
  const from = minutesOf(start)!;
  let to = minutesOf(end)!;
  if (to <= from) to += DAY;
  return { start: from, end: to };
}

/** Minutes from `date`'s midnight to an instant, on the venue's wall clock. */
function minutesFrom(date: string, iso: string, timeZone: string): number {
  const wall = instantToWall(Date.parse(iso), timeZone);
  const days = Math.round(
    (Date.parse(`${wall.date}T00:00:00Z`) - Date.parse(`${date}T00:00:00Z`)) / 86_400_000,
  );
  return days * DAY + minutesOf(wall.time)!;
}

export async function loadDayPlan(date: string, timeZone: string): Promise<DayPlan> {
  const weekday = dayOfWeek(date);
  const [hours, periods, resources, bookings, services] = await Promise.all([
    call((api) => api.GET('/v1/manage/hours')),
    call((api) => api.GET('/v1/manage/service-periods')),
    allPages((cursor) =>
      call((api) => api.GET('/v1/manage/resources', { params: { query: { limit: 200, cursor } } })),
    ),
    allPages((cursor) =>
      call((api) =>
        api.GET('/v1/manage/bookings', { params: { query: { booking_date: date, limit: 200, cursor } } }),
      ),
    ),
    allPages((cursor) =>
      call((api) =>
        api.GET('/v1/manage/services', { params: { query: { limit: 200, cursor, include_inactive: true } } }),
      ),
    ),
  ]);
  const seatsOf = new Map(services.map((service) => [service.id, service.seats]));
  const held = bookings.filter((booking) => booking.status !== 'cancelled');
  const heldResources = new Set(held.flatMap((booking) => booking.resource_ids));
  const shown = resources.filter((resource) => resource.is_active || heldResources.has(resource.id));

  // Blocks overlapping the day, from the day before to the day after in UTC: every zone's day is inside.
  const from = `${addDays(date, -1)}T00:00:00Z`;
  const to = `${addDays(date, 2)}T00:00:00Z`;
  const blocks = await Promise.all(
    shown.map((resource) =>
      allPages((cursor) =>
        call((api) =>
          api.GET('/v1/manage/resources/{resource_id}/blocks', {
            params: { path: { resource_id: resource.id }, query: { from, to, limit: 200, cursor } },
          }),
        ),
      ),
    ),
  );

  const day = hours.find((row) => row.day_of_week === weekday);
  const opening =
    day?.is_open && day.open_time && day.close_time ? span(day.open_time, day.close_time) : null;
  const bands = periods
    .filter((period) => period.days_of_week.includes(weekday))
    .map((period) => ({ name: period.name, ...span(period.start_time, period.end_time) }))
    .sort((a, b) => a.start - b.start);
  const nameOf = new Map(shown.map((resource) => [resource.id, resource.name]));
  const items: BookingItem[] = held
    .map((booking) => {
      const start = minutesOf(booking.start_time)!;
      const seats = booking.service_id ? (seatsOf.get(booking.service_id) ?? null) : null;
      return { booking, start, end: start + booking.duration_minutes, joinedWith: [], classmates: [], seats };
    })
    .sort((a, b) => a.start - b.start || a.booking.resource.name.localeCompare(b.booking.resource.name));

  const spans = [opening, ...bands, ...items].filter((item): item is Item => item !== null);
  const start = spans.length ? Math.floor(Math.min(...spans.map((s) => s.start)) / HOUR) * HOUR : 0;
  const end = spans.length ? Math.ceil(Math.max(...spans.map((s) => s.end)) / HOUR) * HOUR : 0;

  // Grouped by section, the sections in the order of their first resource.
  const sections = new Map<string | null, Section>();
  shown.forEach((resource, index) => {
    const row: Row = {
      id: resource.id,
      name: resource.name,
      capacityMin: resource.capacity_min,
      capacityMax: resource.capacity_max,
      bookings: classBlocks(items.filter((item) => item.booking.resource_ids.includes(resource.id))).map(
        (item) => ({
          ...item,
          joinedWith: item.booking.resource_ids
            .filter((id) => id !== resource.id)
            .map((id) => nameOf.get(id) ?? ''),
        }),
      ),
      blocks: blocks[index]!.map((block) => ({
        start: Math.max(start, minutesFrom(date, block.start_at, timeZone)),
        end: Math.min(end, minutesFrom(date, block.end_at, timeZone)),
        reason: block.reason,
        imported: block.source !== null,
      })).filter((block) => block.end > block.start),
    };
    const section = sections.get(resource.section);
    if (section) section.rows.push(row);
    else sections.set(resource.section, { name: resource.section, rows: [row] });
  });

  return {
    date,
    start,
    end,
    open: opening !== null,
    periods: bands,
    sections: [...sections.values()],
    bookings: items,
  };
}

/**
 * A row's bookings with each class as one block: only a class's bookings share a resource at one
 * time (its service and start), so those after the first go into the first one's `classmates`.
 */
function classBlocks(items: BookingItem[]): BookingItem[] {
  const classes = new Map<string, BookingItem>();
  const blocks: BookingItem[] = [];
  for (const item of items) {
    const key = item.booking.service_id && `${item.booking.service_id}|${item.start}`;
    const first = key ? classes.get(key) : undefined;
    if (first) {
      first.classmates.push(item.booking);
      continue;
    }
    const block = { ...item, classmates: [] };
    if (key) classes.set(key, block);
    blocks.push(block);
  }
  return blocks;
}

/** Every table a booking holds, by name, in the order of its `resource_ids`. */
export function tableNames(plan: DayPlan, item: BookingItem): string[] {
  const names = new Map(plan.sections.flatMap((section) => section.rows.map((row) => [row.id, row.name])));
  return item.booking.resource_ids.map((id) => names.get(id) ?? item.booking.resource.name);
}
