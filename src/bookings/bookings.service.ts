import { randomInt, randomUUID } from 'node:crypto';
import type { Insertable } from 'kysely';
import { recordAudit } from '../audit/audit.service.ts';
import type { AvailabilityService } from '../availability/availability.service.ts';
import { assertPartySize, type LoadedDay, toDayRules } from '../availability/day-rules.service.ts';
import { bookingQuota, type QuotaHolder, sandboxCap } from '../billing/subscription.service.ts';
import { type CustomerInput, customerRowOf, isTrustedCaller } from '../customers/customers.service.ts';
import { guestNamesOf } from '../customers/entry-customer.view.ts';
import { bookingMinutesAt, pacingAt, performs, takesParty } from '../engine/index.ts';
import { type BookingStatus, isTerminal } from '../engine/status.ts';
import type { Principal } from '../platform/auth.ts';
import type { Executor, Tx } from '../platform/db.ts';
import { AppError, invalidField, notFound } from '../platform/errors.ts';
import { ReadChanged } from '../platform/idempotency.ts';
import type { PageRequest } from '../platform/pagination.ts';
import type { BookingSource, DepositStatus, DepositsTable } from '../schema.ts';
import { bookingStatusEvent, emitEvent } from '../webhooks/events.service.ts';
import { HOLD_LEAD_MS, MONEY_TAKEN } from './bookings.model.ts';
import {
  type BookingFilters,
  bookingPlacement,
  findBookingToChange,
  findBookingView,
  freeResourcesFor,
  listBookings,
  lockBooking,
  placeBooking,
  runBookingChange,
  updateBooking,
} from './bookings.queries.ts';
import type { BookingView } from './bookings.view.ts';
import { type PlacementRequest, pacingToCheck, planPlacement } from './placement.service.ts';
import { roomByReseating } from './reseating.service.ts';
import { refusalOf } from './sqlstates.model.ts';
import type {
  BookingMove,
  ChangeBookingParams,
  DepositToPlace,
  PacingToCheck,
  PlaceBookingParams,
} from './statements.model.ts';
import { assertMoveReady, transitionRefusal } from './status.rules.ts';

type Actor = Pick<Principal, 'actor' | 'kind' | 'scopes'> & { businessId: string };

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
export function confirmationCode(): string {
  let code = '';
  for (let i = 0; i < 8; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

/**
 * One booking as the API shows it; to the `host` (the manage detail) with the guest's allergies and
 * tags, which a booking kept in an event or audit row never carries.
 */
export async function findBooking(
  executor: Executor,
  businessId: string,
  bookingId: string,
  reader: 'host' | 'record' = 'record',
): Promise<BookingView> {
  const booking = await findBookingView(executor, businessId, bookingId, reader);
  if (!booking) throw notFound('booking');
  return booking;
}

/** The business's bookings as a page of the list the filters ask for. */
export const findBookings = (executor: Executor, page: PageRequest, filters: BookingFilters) =>
  listBookings(executor, page, filters);

export interface NewBooking {
  date: string;
  time: string;
  partySize: number;
  serviceId?: string | null;
  resourceId?: string | null;
  customer: CustomerInput;
  customerNotes?: string | null;
  /** The guest's own consent to the venue's news and offers, ticked on an online booking form. */
  marketingOptIn?: boolean;
  source: BookingSource;
  /** The reservation partner that books (source `partner`). */
  partnerId?: string;
  /**
   * `dynamic`: the start may take any minute and the booking lasts `durationMinutes`, for a business
   * that books in dynamic mode (400 otherwise). Scheduled when absent.
   */
  mode?: 'scheduled' | 'dynamic';
  /** The booking's length; the service's or the business's default when absent. */
  durationMinutes?: number;
  /** A deposit prepared before the transaction: the booking waits for it, `pending`. */
  deposit?: BookingDeposit;
  /** A walk-in sits down as it is booked: `checked_in` from the start. */
  seated?: boolean;
  /** The staff series the booking is one occurrence of. */
  seriesId?: string;
}

/**
 * The deposit a booking is created with: the booking's id, picked when the processor was asked
 * for the payment (its idempotency key and metadata name the booking), and the deposit's row.
 */
export interface BookingDeposit {
  bookingId: string;
  row: Omit<Insertable<DepositsTable>, 'business_id' | 'booking_id'>;
}

/** The prepared deposit's row as the booking statement takes it, its times as ISO timestamps. */
const depositToPlace = ({ expires_at, hold_due_at, ...row }: BookingDeposit['row']): DepositToPlace => ({
  ...row,
  expires_at: expires_at && new Date(expires_at).toISOString(),
  hold_due_at: hold_due_at && new Date(hold_due_at).toISOString(),
});

/** Who books: the credential's caller, with what its business's monthly quota is counted for. */
export type BookingActor = Actor & QuotaHolder;

/**
 * Creates a booking in ONE statement. Every rule is checked by `planPlacement` against the
 * business's rules and busy periods as the availability caches hold them (kept current by the
 * change feed); they only order the candidate resources: the statement (`slotwise_place_booking`)
 * takes the first candidate still active, unblocked and accepted by the exclusion constraint, so a
 * cache a moment behind can neither double-book nor refuse a resource freed meanwhile. Online bookings sit on the slot grid
 * and respect notice and window; dynamic ones take any minute and their own length with the same
 * rules otherwise; staff bookings take any minute inside hours. Called alone the statement is the
 * request's transaction; inside the caller's, it is part of it. The month's count (the developer's
 * quota, or a sandbox business's cap) is the statement's too.
 */
export async function createBooking(
  executor: Executor,
  availability: AvailabilityService,
  actor: BookingActor,
  input: NewBooking,
  now: number,
): Promise<HeldBooking> {
  const staff = input.source === 'staff';
  const request: PlacementRequest = {
    date: input.date,
    time: input.time,
    partySize: input.partySize,
    serviceId: input.serviceId,
    resourceId: input.resourceId,
    durationMinutes: input.durationMinutes,
    mode: staff ? 'staff' : input.mode === 'dynamic' ? 'dynamic' : 'online',
  };
  const ctx = await availability.loadedDay(actor.businessId, request, now, executor);
  const placement = planPlacement(ctx, request, now);
  const room =
    placement.reseating && (await roomByReseating(executor, actor.businessId, placement.reseating, now));
  const quota = bookingQuota(actor, input.source, now);
  const cap = sandboxCap(actor, actor.businessId, now);
  const booking: PlaceBookingParams = {
    id: input.deposit?.bookingId ?? randomUUID(),
    business_id: actor.businessId,
    service_id: ctx.service?.id ?? null,
    ...placement.times,
    duration_minutes: placement.durationMinutes,
    during: placement.during,
    status: input.seated
      ? 'checked_in'
      : !input.deposit && (staff || ctx.business.auto_confirm_bookings)
        ? 'confirmed'
        : 'pending',
    capacity: input.partySize,
    source: input.source,
    partner_id: input.partnerId,
    customer_notes: input.customerNotes ?? null,
    ...guestNamesOf(input.customer),
    customer: customerRowOf(input.customer),
    trusted: isTrustedCaller(actor, actor.businessId),
    marketing_opt_in: input.marketingOptIn === true && input.source === 'online' ? true : undefined,
    // The table re-seating frees first; the others in case the caches were behind.
    candidates: room ? [[room.resourceId], ...placement.candidates] : placement.candidates,
    reseat: room?.moves.map((move) => ({
      booking_id: move.bookingId,
      from_resource: move.from,
      to_resource: move.to,
    })),
    pacing: placement.pacing,
    class: placement.class,
    codes: Array.from({ length: 5 }, confirmationCode),
    deposit: input.deposit && depositToPlace(input.deposit.row),
    actor: actor.actor,
    action: staff
      ? input.deposit
        ? 'booking.created_by_staff_with_deposit'
        : 'booking.created_by_staff'
      : 'booking.created',
    quota: quota
      ? { developer_id: quota.developerId, month: quota.month, limit: quota.quota, plan_id: quota.planId }
      : undefined,
    sandbox_cap: cap ? { month: cap.month, cap: cap.cap } : undefined,
    series_id: input.seriesId,
  };
  const placed = await placeBooking(executor, booking).catch((error) => {
    throw refusalOf(error);
  });
  return { booking: placed.booking, heldDates: placed.held_dates };
}

/**
 * A booking a statement placed or changed, with the UTC dates its held time touches (before a
 * change too), as the database counts them (`booking_views.held_dates`, `slotwise_utc_days`).
 */
export interface HeldBooking {
  booking: BookingView;
  heldDates: readonly string[];
}

/**
 * Notes on the request the dates a booking it created or changed holds time on (before the change
 * too), so that once it is answered only the days those can touch are recomputed in this process
 * (app.ts, `onSend`). Answers the booking.
 */
export function booked(request: { bookedDates: readonly string[] | null }, held: HeldBooking): BookingView {
  request.bookedDates = held.heldDates;
  return held.booking;
}

export interface BookingChange {
  status?: BookingStatus;
  resource_id?: string;
  capacity?: number;
  booking_date?: string;
  start_time?: string;
  /** Staff keep the booking on its table (re-seating never moves it), or let it be moved again. */
  table_locked?: boolean;
}

async function lockedBooking(tx: Tx, businessId: string, bookingId: string) {
  const row = await lockBooking(tx, businessId, bookingId);
  if (!row) throw notFound('booking');
  return row;
}

/** One field's change on a booking, as its audit row. */
function auditBooking(
  tx: Tx,
  actor: Actor,
  bookingId: string,
  action: string,
  field: string,
  before: unknown,
  after: unknown,
) {
  return recordAudit(tx, actor, {
    action,
    entityType: 'booking',
    entityId: bookingId,
    before: { [field]: before },
    after: { [field]: after },
  });
}

/**
 * Applies a staff PATCH: reschedule, resource move, party size and status, each re-validated,
 * audited and announced. The booking is read, the change prepared from it and the business's rules
 * (as the availability caches hold them: a reschedule's candidates are ordered by them, and the
 * exclusion constraint decides), then made in ONE statement on the version that was read. Terminal
 * bookings only keep their status. Answers the booking before and after the change, with the UTC
 * dates it held before and holds after.
 *
 * When another request changed the booking between the read and the statement, the statement
 * changes nothing: run alone, the change is then made again in a transaction (`ReadChanged`,
 * `commitStatement`); in a transaction, it is read again with the booking locked first, so that
 * nothing else changes it before this change is made.
 */
export async function changeBooking(
  executor: Executor,
  availability: AvailabilityService,
  actor: Actor,
  bookingId: string,
  change: BookingChange,
  now: number,
  rules: ChangeRules = 'venue',
): Promise<ChangedBooking> {
  const changed = await tryChange(executor, availability, actor, bookingId, change, now, rules);
  if (changed !== 'stale') return changed;
  if (!executor.isTransaction) throw new ReadChanged();
  await lockedBooking(executor as Tx, actor.businessId, bookingId);
  const retried = await tryChange(executor, availability, actor, bookingId, change, now, rules);
  if (retried === 'stale')
    throw new AppError('conflict', 'the booking changed during this change; try again');
  return retried;
}

export interface ChangedBooking extends HeldBooking {
  before: BookingView;
}

async function tryChange(
  executor: Executor,
  availability: AvailabilityService,
  actor: Actor,
  bookingId: string,
  change: BookingChange,
  now: number,
  rules: ChangeRules,
): Promise<ChangedBooking | 'stale'> {
  const read = await findBookingToChange(executor, actor.businessId, bookingId);
  if (!read) throw notFound('booking');
  const { version, during, held_dates, view: before } = read;
  const statement = await prepareChange(
    executor,
    availability,
    actor,
    { before, during },
    change,
    now,
    rules,
  );
  if (!statement) return { before, booking: before, heldDates: held_dates };
  const changed = await runBookingChange(executor, { ...statement, version }).catch((error) => {
    throw refusalOf(error);
  });
  if (changed === 'stale') return changed;
  return {
    before,
    booking: changed.booking,
    heldDates: [...new Set([...changed.held_dates, ...held_dates])],
  };
}

/**
 * A booking waiting for its deposit, cancelled (by the guest or the staff) before the money came:
 * it never became confirmed, so it gives its month's unit back, as it does when the service
 * cancels it unpaid. Its deadline passing later finds it cancelled and gives nothing more.
 */
const cancelledUnpaid = (before: BookingView, status: BookingStatus) =>
  before.status === 'pending' &&
  status === 'cancelled' &&
  before.deposit !== null &&
  !MONEY_TAKEN.includes(before.deposit.status as DepositStatus);

type PreparedChange = Omit<ChangeBookingParams, 'version'>;

/** The statement that makes `change` on the booking as it was read; null when it changes nothing. */
async function prepareChange(
  executor: Executor,
  availability: AvailabilityService,
  actor: Actor,
  current: { before: BookingView; during: string },
  change: BookingChange,
  now: number,
  rules: ChangeRules,
): Promise<PreparedChange | null> {
  const { before } = current;
  const status = before.status as BookingStatus;
  const reschedule = change.booking_date !== undefined || change.start_time !== undefined;
  const touchesPlacement = reschedule || change.resource_id !== undefined || change.capacity !== undefined;
  if (touchesPlacement && isTerminal(status)) {
    throw new AppError('conflict', `a ${status} booking cannot be changed`);
  }
  const capacity = change.capacity ?? before.capacity;
  const statement: PreparedChange = {
    business_id: actor.businessId,
    booking_id: before.id,
    actor: actor.actor,
    events: [],
  };
  if (reschedule || (rules === 'guest' && capacity !== before.capacity)) {
    // A guest's own change, of time or party, is a new online booking's placement in every rule.
    statement.move = await prepareMove(
      executor,
      availability,
      actor.businessId,
      before,
      capacity,
      now,
      {
        date: change.booking_date ?? before.booking_date,
        time: change.start_time ?? before.start_time,
        resourceId: change.resource_id,
        mode: rules === 'venue' && madeByStaff(before) ? 'staff' : 'online',
      },
      rules,
    );
    statement.events.push('booking.rescheduled');
  } else {
    const resourceId = change.resource_id ?? before.resource_id;
    if (before.resource_ids.length > 1 && change.resource_id === undefined && capacity !== before.capacity) {
      // A combined party of a new size is seated again at its start: on one resource when one
      // fits, which frees the joined tables, else on its combination when that still takes it.
      statement.move = await prepareMove(executor, availability, actor.businessId, before, capacity, now, {
        date: before.booking_date,
        time: before.start_time,
        mode: 'staff',
      });
      statement.events.push('booking.rescheduled');
    } else if (resourceId !== before.resource_id || capacity !== before.capacity) {
      const day = await checkPlace(
        executor,
        availability,
        actor.businessId,
        before,
        resourceId,
        capacity,
        now,
      );
      if (takesOtherLength(day, before, capacity, now)) {
        // The party keeps its start and needs another length there: placed as a reschedule to
        // the same start on its resource, inside hours, whatever the grid, notice or window.
        statement.move = await prepareMove(executor, availability, actor.businessId, before, capacity, now, {
          date: before.booking_date,
          time: before.start_time,
          resourceId,
          mode: 'staff',
        });
        statement.events.push('booking.rescheduled');
      } else {
        statement.place = {
          resource_id: resourceId,
          capacity,
          during: current.during,
          pacing: capacity > before.capacity ? grownPartyPacing(day, before, capacity, now) : null,
        };
        statement.events.push('booking.updated');
      }
    }
  }
  if (change.table_locked !== undefined && change.table_locked !== before.table_locked) {
    statement.table_locked = change.table_locked;
    if (!statement.events.includes('booking.updated')) statement.events.push('booking.updated');
  }
  // A closed booking stays closed: even "cancelled" again is a refused move, not a no-op.
  if (change.status !== undefined && (change.status !== status || isTerminal(status))) {
    const refusal = transitionRefusal(status, change.status);
    if (!refusal) {
      assertMoveReady(status, change.status, statement.move ?? before, now);
      statement.status = change.status;
      if (cancelledUnpaid(before, change.status)) statement.give_unit_back = true;
      if (change.status !== 'pending') statement.events.push(bookingStatusEvent(change.status));
    } else if (statement.move || statement.place) {
      // The statement answers the placement's own refusal first, and this one after.
      statement.status_refused = refusal;
    } else {
      throw new AppError('conflict', refusal);
    }
  }
  return statement.move || statement.place || statement.status || statement.table_locked !== undefined
    ? statement
    : null;
}

/** A booking the staff made is changed by the staff's rules: inside hours, past a full pacing. */
const madeByStaff = (before: BookingView) => before.source === 'staff';

/**
 * Whose rules a change follows: the venue's (the staff's, for a booking staff made), or a guest's
 * own, which are those of an online booking whoever made it.
 */
export type ChangeRules = 'venue' | 'guest';

/** The pacing a party grown at its own start is checked against (the booking does not count against itself). */
function grownPartyPacing(
  day: LoadedDay,
  before: BookingView,
  capacity: number,
  now: number,
): PacingToCheck | null {
  const caps = pacingAt(
    toDayRules(day, { date: before.booking_date, partySize: capacity }, now),
    before.start_time,
  );
  return caps && pacingToCheck(before, caps, madeByStaff(before));
}

/**
 * A reschedule with every rule of a new booking, planned on the day as the availability caches
 * hold it (`planPlacement`): the booking stays on its resource when that is free at the new time
 * and no other was asked for.
 */
async function prepareMove(
  executor: Executor,
  availability: AvailabilityService,
  businessId: string,
  before: BookingView,
  capacity: number,
  now: number,
  to: Pick<PlacementRequest, 'date' | 'time' | 'resourceId' | 'mode'>,
  rules: ChangeRules = 'venue',
): Promise<BookingMove> {
  // Moved under staff rules or not, only the venue moving a booking staff made may pass a full pacing.
  const request: PlacementRequest = {
    ...to,
    partySize: capacity,
    serviceId: before.service_id,
    passesPacing: rules === 'venue' && madeByStaff(before),
    byGuest: rules === 'guest',
  };
  const ctx = await availability.loadedDay(businessId, request, now, executor);
  const placement = planPlacement(ctx, request, now, before);
  return {
    candidates: placement.candidates,
    ...placement.times,
    duration_minutes: placement.durationMinutes,
    during: placement.during,
    capacity,
    hold_lead_ms: HOLD_LEAD_MS,
    pacing: placement.pacing,
    class: placement.class,
  };
}

/**
 * Whether a new party size changes the booking's length: the turn times of the two sizes differ
 * (those of the period the booking starts in, if any).
 * A booking of a service keeps the service's length, and one in dynamic mode the length it asked.
 */
function takesOtherLength(day: LoadedDay, before: BookingView, capacity: number, now: number): boolean {
  if (capacity === before.capacity || before.service_id !== null || day.business.booking_mode === 'dynamic') {
    return false;
  }
  const minutes = (partySize: number) =>
    bookingMinutesAt(toDayRules(day, { date: before.booking_date, partySize }, now), before.start_time);
  return minutes(capacity) !== minutes(before.capacity);
}

/**
 * A move to another resource or a new party size at the same time, checked against the business's
 * rules as the availability engine reads them (the cached rules of `loadedDay`): the business's
 * party limits, the resource's range and the resources the booking's service is performed on.
 * Whether the resource is still active and unblocked, and free, is the statement's to judge when it
 * places the booking; a resource the rules do not list has no range to check and is refused here.
 * Answers the day it checked against.
 */
async function checkPlace(
  executor: Executor,
  availability: AvailabilityService,
  businessId: string,
  before: BookingView,
  resourceId: string,
  capacity: number,
  now: number,
): Promise<LoadedDay> {
  const moved = resourceId !== before.resource_id;
  const resized = capacity !== before.capacity;
  const day = await availability.loadedDay(
    businessId,
    // The service tells where it is performed, and whether a party takes a class's seats instead of a
    // resource's range.
    {
      date: before.booking_date,
      partySize: capacity,
      serviceId: moved || resized ? before.service_id : null,
    },
    now,
    executor,
  );
  if (resized) assertPartySize(day.business, capacity, 'staff');
  const resource = day.resources.find((candidate) => candidate.id === resourceId);
  if (!resource) throw invalidField('resource_id', 'is not an active resource of this business');
  if (moved && day.service?.requirements.length) {
    throw invalidField(
      'resource_id',
      "holds its service's resources together: they move with a new time, not one by one",
    );
  }
  if (moved && !performs(day.service?.resource_ids, resourceId)) {
    throw invalidField('resource_id', "does not perform this booking's service");
  }
  // A class's party takes seats of the class, which the statement counts, not of the resource.
  if (!day.service?.seats && !takesParty(resource, capacity)) {
    throw invalidField(
      resized ? 'capacity' : 'resource_id',
      `the resource takes parties of ${resource.capacityMin} to ${resource.capacityMax}`,
    );
  }
  return day;
}

export async function saveStaffNotes(
  tx: Tx,
  actor: Actor,
  bookingId: string,
  notes: string,
): Promise<BookingView> {
  const current = await lockedBooking(tx, actor.businessId, bookingId);
  await updateBooking(tx, actor.businessId, current.id, { staff_notes: notes });
  await auditBooking(tx, actor, current.id, 'booking.notes_saved', 'staff_notes', current.staff_notes, notes);
  const booking = await findBooking(tx, actor.businessId, bookingId);
  await emitEvent(tx, actor.businessId, 'booking.updated', booking, booking.id);
  return booking;
}

/** Active resources that could take the booking instead of its current one, in display order. */
export async function availableResources(executor: Executor, businessId: string, bookingId: string) {
  const booking = await bookingPlacement(executor, businessId, bookingId);
  if (!booking) throw notFound('booking');
  return freeResourcesFor(executor, businessId, booking);
}
