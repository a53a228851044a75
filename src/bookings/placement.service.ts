import type { ServiceRules } from '../availability/availability.queries.ts';
import {
  assertDynamicMode,
  assertPartySize,
  type DayQuery,
  type LoadedDay,
  startFailure,
  toDayRules,
} from '../availability/day-rules.service.ts';
import {
  addDays,
  bookingMinutesAt,
  checkStart,
  instantToWall,
  type PacingCaps,
  setsToTry,
  todayIn,
} from '../engine/index.ts';
import type { DayRules } from '../engine/types.ts';
import { AppError } from '../platform/errors.ts';
import { rangeLiteral } from '../platform/sql.ts';
import type { ClassToJoin, PacingToCheck } from './statements.model.ts';

/**
 * Which rules a start is checked by: `online` on the slot grid, with minimum notice and the
 * booking window; `dynamic` at any minute for the length asked, the same rules otherwise, for a
 * business that books in dynamic mode (400 otherwise); `staff` at any minute inside hours, without
 * notice or window, dated within the staff range.
 */
export type PlacementMode = 'online' | 'dynamic' | 'staff';

/** Where and when a booking is to be placed; also the day to load for it. */
export interface PlacementRequest extends DayQuery {
  time: string;
  mode: PlacementMode;
  /**
   * Whether the booking may pass a full pacing (the host decides): by default a staff placement
   * may; a move says whether the booking it moves was made by staff.
   */
  passesPacing?: boolean;
  /** A guest moving their own booking: the online party limit binds the move as a new booking. */
  byGuest?: boolean;
}

/** The booking a move places again, as it is before the move. */
export interface MovedBooking {
  resource_id: string;
  /** Every resource it holds: more than one on a combination. */
  resource_ids: string[];
  duration_minutes: number;
}

/** A booking's times as the API shows them. */
export interface PlacedTimes {
  booking_date: string;
  start_time: string;
  end_time: string;
  starts_at: string;
  ends_at: string;
}

export interface Placement {
  /**
   * The sets of resources the booking statement tries, in this order (one resource, or a
   * combination's tables); the exclusion constraint decides.
   */
  candidates: string[][];
  times: PlacedTimes;
  durationMinutes: number;
  /** The range the resource is held for, buffers included, as a tstzrange literal. */
  during: string;
  /** The start's pacing for the statement to enforce; null when no period caps it. */
  pacing: PacingToCheck | null;
  /** The class at the start whose seats the statement counts; null for a service that is no class. */
  class: ClassToJoin | null;
  /**
   * Non-null when the caches saw no free resource or combination for a new booking that holds one
   * resource: moving other bookings may still make room (re-seating.service.ts `roomByReseating`).
   */
  reseating: ReseatingQuestion | null;
}

/** What re-seating asks of the day: the rules, the new booking's held range, the resources it may take. */
export interface ReseatingQuestion {
  rules: DayRules;
  held: { start: number; end: number };
  /** Best fit first. */
  targets: string[];
}

const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((id) => b.includes(id));

/** The most sets of a service's groups one placement tries, each in a subtransaction of its own. */
const REQUIREMENT_SETS_TRIED = 24;

const STAFF_DAYS_BACK = 30;
const STAFF_YEARS_AHEAD = 2;

/**
 * Staff bookings skip notice and the booking window, but their date stays sensible: late entries
 * up to 30 days back, plans up to two years ahead, counted in the business's zone.
 */
function assertStaffDate(date: string, timezone: string, now: number): void {
  const today = todayIn(timezone, now);
  const earliest = addDays(today, -STAFF_DAYS_BACK);
  // The same calendar day two years on; as a string comparison, 29 February needs no special case.
  const latest = `${Number(today.slice(0, 4)) + STAFF_YEARS_AHEAD}${today.slice(4)}`;
  if (date < earliest || date > latest) {
    throw new AppError(
      'outside_booking_window',
      `staff bookings may be dated from ${earliest} to ${latest}; ${date} is outside that range`,
    );
  }
}

/**
 * Plans a new booking, or a move of `moved`, on `day` as the availability caches hold it: every
 * rule is checked here (the contract's errors are thrown), and the caches only order the
 * candidates, since they may be a moment behind: the resources they see free come first, then the
 * ones they see busy, which the statement may still find free; single resources before
 * combinations, each in the same way. A moved booking stays on its resource when that still fits
 * and no other was asked for; one on a combination is seated on a single resource when one fits
 * (which frees the joined tables), else stays on its combination when that still takes it. In a
 * business that books in dynamic mode a moved booking keeps its length and may take any minute.
 */
export function planPlacement(
  day: LoadedDay,
  request: PlacementRequest,
  now: number,
  moved?: MovedBooking,
): Placement {
  const { business } = day;
  if (request.mode === 'dynamic' && !moved) assertDynamicMode(business);
  const staff = request.mode === 'staff';
  const dynamic = request.mode === 'dynamic' || (moved !== undefined && business.booking_mode === 'dynamic');
  // Only a guest's own booking, new or moved by them, meets the online limit: staff make and move
  // any party the business seats.
  const guests = request.mode !== 'staff' && (!moved || request.byGuest === true);
  assertPartySize(business, request.partySize, guests ? 'online' : 'staff');
  if (staff) assertStaffDate(request.date, business.timezone, now);
  const durationMinutes = moved && dynamic ? moved.duration_minutes : request.durationMinutes;
  const rules = toDayRules(day, { ...request, durationMinutes }, now);
  const passPacing = request.passesPacing ?? staff;
  const options = { onGrid: !staff && !dynamic, ignoreNoticeAndWindow: staff, passPacing };
  // A moved booking's own time shows busy in the cache: only the statement can tell what else is.
  const check = checkStart(rules, request.time, options);
  if (!check.ok && check.reason !== 'slot_unavailable') throw startFailure(check);
  // Every resource the rules allow, busy or not; the statement judges pacing as it judges resources.
  const fitting = checkStart({ ...rules, busy: [], arrivals: [] }, request.time, options);
  if (!fitting.ok) throw startFailure(fitting);
  const combined = moved !== undefined && moved.resource_ids.length > 1;
  const keepsResource =
    moved && !combined && !request.resourceId && fitting.freeResourceIds.includes(moved.resource_id);
  const joined = new Map(day.combinations.map((combination) => [combination.id, combination.resourceIds]));
  const keepsCombination =
    combined && fitting.freeCombinationIds.some((id) => sameSet(joined.get(id)!, moved.resource_ids));
  const candidates = new Map<string, string[]>();
  const add = (set: readonly string[]) => candidates.set(set.join(), [...set]);
  if (keepsResource) add([moved.resource_id]);
  if (rules.requirements?.length) {
    // The groups' sets the cache sees free first, then every other set the rules allow, a moved
    // booking's own set first of all while it still may hold it.
    const allowed = setsToTry(rules.requirements, fitting.freeByRequirement!, REQUIREMENT_SETS_TRIED);
    if (moved && allowed.some((set) => set.join() === moved.resource_ids.join())) add(moved.resource_ids);
    if (check.ok)
      for (const set of setsToTry(rules.requirements, check.freeByRequirement!, REQUIREMENT_SETS_TRIED))
        add(set);
    for (const set of allowed) add(set);
  }
  // A moved booking's own tables are busy only with itself: among the free ones in best-fit order.
  const free = new Set([...(check.ok ? check.freeResourceIds : []), ...(moved?.resource_ids ?? [])]);
  for (const id of fitting.freeResourceIds) if (free.has(id)) add([id]);
  for (const id of fitting.freeResourceIds) add([id]);
  if (keepsCombination) add(moved.resource_ids);
  for (const id of check.ok ? check.freeCombinationIds : []) add(joined.get(id)!);
  for (const id of fitting.freeCombinationIds) add(joined.get(id)!);
  const tz = business.timezone;
  const times: PlacedTimes = {
    booking_date: request.date,
    start_time: instantToWall(fitting.start, tz).time,
    end_time: instantToWall(fitting.end, tz).time,
    starts_at: new Date(fitting.start).toISOString(),
    ends_at: new Date(fitting.end).toISOString(),
  };
  return {
    candidates: [...candidates.values()],
    times,
    durationMinutes: bookingMinutesAt(rules, request.time),
    during: rangeLiteral(fitting.heldStart, fitting.heldEnd),
    pacing: fitting.pacing && pacingToCheck(times, fitting.pacing, passPacing),
    class: classToJoin(day.service, times),
    reseating:
      !moved && !check.ok && !request.resourceId && !rules.class && !rules.requirements?.length && !dynamic
        ? {
            rules,
            held: { start: fitting.heldStart, end: fitting.heldEnd },
            targets: fitting.freeResourceIds,
          }
        : null,
  };
}

/** What the statement is told of the class a booking at `times` takes seats of; null for no class. */
const classToJoin = (
  service: Pick<ServiceRules, 'seats'> | null,
  times: Pick<PlacedTimes, 'booking_date' | 'start_time' | 'starts_at'>,
): ClassToJoin | null =>
  service?.seats
    ? {
        seats: service.seats,
        starts_at: times.starts_at,
        booking_date: times.booking_date,
        start_time: times.start_time,
      }
    : null;

/** What the statement is told of a start's pacing; a staff booking may pass it (the host decides). */
export const pacingToCheck = (
  times: Pick<PlacedTimes, 'booking_date' | 'start_time' | 'starts_at'>,
  caps: PacingCaps,
  override: boolean,
): PacingToCheck => ({
  starts_at: times.starts_at,
  booking_date: times.booking_date,
  start_time: times.start_time,
  max_covers: caps.maxCovers,
  max_bookings: caps.maxBookings,
  override,
});
