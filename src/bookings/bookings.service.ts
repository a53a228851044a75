import { randomInt, randomUUID } from 'node:crypto';
import type { Insertable } from 'kysely';
import { recordAudit } from '../audit/audit.ts';
import type { AvailabilityService } from '../availability/availability.service.ts';
import {
  assertDynamicMode,
  assertPartySize,
  type DayQuery,
  startFailure,
  toDayRules,
} from '../availability/day-rules.ts';
import { addDays, checkStart, instantToWall, todayIn } from '../availability/engine/index.ts';
import {
  bookingQuota,
  countSandboxBooking,
  giveBookingUnitBack,
  type QuotaHolder,
  quotaReached,
  sandboxCap,
} from '../billing/subscription.service.ts';
import {
  answerToCaller,
  type CustomerInput,
  customerRowOf,
  isTrustedCaller,
} from '../customers/customers.service.ts';
import { guestNamesOf } from '../customers/entry-customer.ts';
import type { Principal } from '../platform/auth.ts';
import type { Executor, Tx } from '../platform/db.ts';
import { AppError, invalidField, notFound } from '../platform/errors.ts';
import type { PageRequest } from '../platform/pagination.ts';
import { rangeLiteral } from '../platform/sql.ts';
import type { BookingStatus, DepositStatus, DepositsTable } from '../schema.ts';
import { bookingStatusEvent, emitEvent } from '../webhooks/events.ts';
import {
  type BookingFilters,
  bookingPlacement,
  type ChangeRefusal,
  findBookingRow,
  findBookingToChange,
  freeResourcesFor,
  listBookings,
  lockBooking,
  placeBooking,
  runBookingChange,
  updateBooking,
} from './bookings.queries.ts';
import { type BookingView, toBookingView, withPaymentSecret } from './bookings.view.ts';
import { HOLD_LEAD_MS, MONEY_TAKEN } from './model.ts';
import type { BookingMove, ChangeBookingParams, DepositToPlace, PlaceBookingParams } from './statements.ts';
import { assertMoveReady, isTerminal, transitionRefusal } from './status.ts';

type Actor = Pick<Principal, 'actor' | 'kind' | 'scopes'> & { businessId: string };

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
export function confirmationCode(): string {
  let code = '';
  for (let i = 0; i < 8; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

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

const slotTaken = () => new AppError('slot_unavailable', 'no resource is free for this slot any more');

export async function findBooking(
  executor: Executor,
  businessId: string,
  bookingId: string,
): Promise<BookingView> {
  const row = await findBookingRow(executor, businessId, bookingId);
  if (!row) throw notFound('booking');
  return toBookingView(row);
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
  source: 'online' | 'staff' | 'sandbox';
  /**
   * `dynamic`: the start may take any minute and the booking lasts `durationMinutes`, for a business
   * that books in dynamic mode (400 otherwise). Scheduled when absent.
   */
  mode?: 'scheduled' | 'dynamic';
  /** The booking's length; the service's or the business's default when absent. */
  durationMinutes?: number;
  /** A deposit prepared before the transaction: the booking waits for it, `pending`. */
  deposit?: BookingDeposit;
}

/**
 * The deposit a booking is created with: the booking's id, picked when the processor was asked
 * for the payment (its idempotency key and metadata name the booking), and the deposit's row.
 */
export interface BookingDeposit {
  bookingId: string;
  row: Omit<Insertable<DepositsTable>, 'business_id' | 'booking_id'>;
}

/** A public booking's deposit, with what the guest's browser pays, or saves the card, with. */
export interface PreparedBookingDeposit extends BookingDeposit {
  type: 'charge' | 'authorization_hold';
  clientSecret: string;
}

/**
 * The deposit a public booking asks by its business's settings, prepared with the processor
 * before the booking's transaction and given up there when the transaction fails. Deposits sit
 * above bookings and implement it; app.ts hands it in.
 */
export interface PublicBookingDeposits {
  prepare(
    caller: Principal & { businessId: string },
    request: { date: string; time: string; partySize: number; customer: CustomerInput },
    now: number,
  ): Promise<PreparedBookingDeposit | null>;
  commit<T>(prepared: PreparedBookingDeposit | null, commit: () => Promise<T>): Promise<T>;
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
 * Creates a booking in ONE statement. Every rule is checked here against the business's rules and
 * busy periods as the availability caches hold them (kept current by the change feed); they only
 * order the candidate resources: the statement (migrations/0017) takes the first candidate still
 * active, unblocked and accepted by the exclusion constraint, so a cache a moment behind can
 * neither double-book nor refuse a resource freed meanwhile. Online bookings sit on the slot grid
 * and respect notice and window; dynamic ones take any minute and their own length with the same
 * rules otherwise; staff bookings take any minute inside hours. Called alone the statement is the
 * request's transaction; inside the caller's, it is part of it.
 */
export async function createBooking(
  executor: Executor,
  availability: AvailabilityService,
  actor: BookingActor,
  input: NewBooking,
  now: number,
): Promise<BookingView> {
  const staff = input.source === 'staff';
  const dynamic = input.mode === 'dynamic';
  const query: DayQuery = {
    date: input.date,
    partySize: input.partySize,
    serviceId: input.serviceId,
    resourceId: input.resourceId,
    durationMinutes: input.durationMinutes,
  };
  const ctx = await availability.loadedDay(actor.businessId, query, now, executor);
  if (dynamic) assertDynamicMode(ctx.business);
  assertPartySize(ctx.business, input.partySize);
  if (staff) assertStaffDate(input.date, ctx.business.timezone, now);
  const rules = toDayRules(ctx, query, now);
  const options = { onGrid: !staff && !dynamic, ignoreNoticeAndWindow: staff };
  const check = checkStart(rules, input.time, options);
  if (!check.ok && check.reason !== 'slot_unavailable') throw startFailure(check);
  // Every resource the rules allow, busy or not: the ones the cache sees busy are tried last.
  const fitting = checkStart({ ...rules, busy: [] }, input.time, options);
  if (!fitting.ok) throw startFailure(fitting);
  const free = check.ok ? check.freeResourceIds : [];
  const candidates = [...free, ...fitting.freeResourceIds.filter((id) => !free.includes(id))];
  const tz = ctx.business.timezone;
  const quota = bookingQuota(actor, input.source, now);
  const cap = sandboxCap(actor, actor.businessId, now);
  const booking: Omit<PlaceBookingParams, 'view'> = {
    id: input.deposit?.bookingId ?? randomUUID(),
    business_id: actor.businessId,
    service_id: ctx.service?.id ?? null,
    booking_date: input.date,
    start_time: instantToWall(fitting.start, tz).time,
    end_time: instantToWall(fitting.end, tz).time,
    duration_minutes: rules.durationMinutes,
    starts_at: new Date(fitting.start).toISOString(),
    ends_at: new Date(fitting.end).toISOString(),
    during: rangeLiteral(fitting.heldStart, fitting.heldEnd),
    status: !input.deposit && (staff || ctx.business.auto_confirm_bookings) ? 'confirmed' : 'pending',
    capacity: input.partySize,
    source: input.source,
    customer_notes: input.customerNotes ?? null,
    ...guestNamesOf(input.customer),
    customer: customerRowOf(input.customer),
    trusted: isTrustedCaller(actor, actor.businessId),
    candidates,
    codes: Array.from({ length: 5 }, confirmationCode),
    deposit: input.deposit && depositToPlace(input.deposit.row),
    actor: actor.actor,
    action: staff
      ? input.deposit
        ? 'booking.created_by_staff_with_deposit'
        : 'booking.created_by_staff'
      : 'booking.created',
    quota: quota ? { developer_id: quota.developerId, month: quota.month, limit: quota.quota } : undefined,
  };
  const place = async (on: Executor) => {
    const placed = await placeBooking(on, booking);
    if (placed === 'slot_taken') throw slotTaken();
    if (placed === 'quota_reached') throw quotaReached(quota!);
    // A sandbox's cap is counted after the placement, in its transaction: refused, nothing stays.
    if (cap) await countSandboxBooking(on as Tx, cap);
    return placed;
  };
  if (!cap || executor.isTransaction) return place(executor);
  return executor.transaction().execute(place);
}

/**
 * A booking holds at most 4 hours before its start (a service's buffer) and 8 after its end (the
 * business's buffer and a service's, 4 hours each at most: settings and services schemas).
 */
const MAX_HELD_BEFORE_MS = 4 * 3_600_000;
const MAX_HELD_AFTER_MS = 8 * 3_600_000;
const DAY_MS = 86_400_000;

/** The UTC dates a booking's held time can touch, its buffers included. */
function heldDatesOf(booking: Pick<BookingView, 'starts_at' | 'ends_at'>): string[] {
  const first = Math.floor((Date.parse(booking.starts_at) - MAX_HELD_BEFORE_MS) / DAY_MS);
  const last = Math.floor((Date.parse(booking.ends_at) + MAX_HELD_AFTER_MS - 1) / DAY_MS);
  const dates: string[] = [];
  for (let day = first; day <= last; day++) dates.push(new Date(day * DAY_MS).toISOString().slice(0, 10));
  return dates;
}

/**
 * Notes on the request the dates a booking it created or changed holds time on (before the change
 * too), so that once it is answered only the days those can touch are recomputed in this process
 * (app.ts, `onSend`).
 */
export function booked<T extends BookingView>(
  request: { bookedDates: readonly string[] | null },
  booking: T,
  before?: BookingView,
): T {
  const dates = heldDatesOf(booking);
  if (before) dates.push(...heldDatesOf(before).filter((date) => !dates.includes(date)));
  request.bookedDates = dates;
  return booking;
}

/**
 * A new online booking as its caller is answered: its held dates noted for the caches, the
 * deposit's client secret added, and nothing of the customer for a caller not trusted with it.
 */
export const answerNewBooking = (
  request: { bookedDates: readonly string[] | null },
  principal: Principal,
  businessId: string,
  booking: BookingView,
  deposit: PreparedBookingDeposit | null,
  sent: CustomerInput,
) => answerToCaller(principal, businessId, withPaymentSecret(booked(request, booking), deposit), sent);

export interface BookingChange {
  status?: BookingStatus;
  resource_id?: string;
  capacity?: number;
  booking_date?: string;
  start_time?: string;
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
 * bookings only keep their status. Answers the booking before and after the change.
 */
export async function changeBooking(
  executor: Executor,
  availability: AvailabilityService,
  actor: Actor,
  bookingId: string,
  change: BookingChange,
  now: number,
): Promise<ChangedBooking> {
  // A cancellation may give a unit back (`cancelledUnpaid`): in the change's own transaction.
  if (change.status === 'cancelled' && !executor.isTransaction) {
    return executor
      .transaction()
      .execute((tx) => changeBooking(tx, availability, actor, bookingId, change, now));
  }
  const changed = await tryChange(executor, availability, actor, bookingId, change, now);
  if (changed !== 'stale') return changed;
  // Another request changed the booking between its read and this change: read again with the
  // booking locked first, so that nothing else changes it before this change is made.
  const lockedFirst = async (tx: Tx) => {
    await lockedBooking(tx, actor.businessId, bookingId);
    return tryChange(tx, availability, actor, bookingId, change, now);
  };
  const retried = executor.isTransaction
    ? await lockedFirst(executor as Tx)
    : await executor.transaction().execute(lockedFirst);
  if (retried === 'stale')
    throw new AppError('conflict', 'the booking changed during this change; try again');
  return retried;
}

interface ChangedBooking {
  before: BookingView;
  booking: BookingView;
}

async function tryChange(
  executor: Executor,
  availability: AvailabilityService,
  actor: Actor,
  bookingId: string,
  change: BookingChange,
  now: number,
): Promise<ChangedBooking | 'stale'> {
  const row = await findBookingToChange(executor, actor.businessId, bookingId);
  if (!row) throw notFound('booking');
  const { version, during, ...viewRow } = row;
  const before = toBookingView(viewRow);
  const statement = await prepareChange(executor, availability, actor, { before, during }, change, now);
  if (!statement) return { before, booking: before };
  const changed = await runBookingChange(executor, { ...statement, version, view: before });
  if (changed === 'stale') return changed;
  if ('refused' in changed) throw changeRefusal(changed, statement, before);
  if (cancelledUnpaid(before, changed))
    await giveBookingUnitBack(executor as Tx, actor.businessId, before.id);
  return { before, booking: changed };
}

/**
 * A booking waiting for its deposit, cancelled (by the guest or the staff) before the money came:
 * it never became confirmed, so it gives its month's unit back, as it does when the service
 * cancels it unpaid. Its deadline passing later finds it cancelled and gives nothing more.
 */
const cancelledUnpaid = (before: BookingView, after: BookingView) =>
  before.status === 'pending' &&
  after.status === 'cancelled' &&
  before.deposit !== null &&
  !MONEY_TAKEN.includes(before.deposit.status as DepositStatus);

type PreparedChange = Omit<ChangeBookingParams, 'version' | 'view'>;

/** The statement that makes `change` on the booking as it was read; null when it changes nothing. */
async function prepareChange(
  executor: Executor,
  availability: AvailabilityService,
  actor: Actor,
  current: { before: BookingView; during: string },
  change: BookingChange,
  now: number,
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
  if (reschedule) {
    statement.move = await prepareMove(
      executor,
      availability,
      actor.businessId,
      before,
      change,
      capacity,
      now,
    );
    statement.events.push('booking.rescheduled');
  } else {
    const resourceId = change.resource_id ?? before.resource_id;
    if (resourceId !== before.resource_id || capacity !== before.capacity) {
      statement.place = { resource_id: resourceId, capacity, during: current.during };
      statement.events.push('booking.updated');
    }
  }
  // A closed booking stays closed: even "cancelled" again is a refused move, not a no-op.
  if (change.status !== undefined && (change.status !== status || isTerminal(status))) {
    const refusal = transitionRefusal(status, change.status);
    if (!refusal) {
      assertMoveReady(status, change.status, statement.move?.view ?? before, now);
      statement.status = change.status;
      if (change.status !== 'pending') statement.events.push(bookingStatusEvent(change.status));
    } else if (statement.move || statement.place) {
      // The statement answers the placement's own refusal first, and this one after.
      statement.status_refused = refusal;
    } else {
      throw new AppError('conflict', refusal);
    }
  }
  return statement.move || statement.place || statement.status ? statement : null;
}

/**
 * A reschedule with every rule of a new booking, checked against the day as the availability
 * caches hold it. The booking stays on its resource when that is free at the new time and no other
 * was asked for; then come the resources the cache sees free, then the ones it sees busy, which the
 * statement tries in that order.
 */
async function prepareMove(
  executor: Executor,
  availability: AvailabilityService,
  businessId: string,
  before: BookingView,
  change: BookingChange,
  capacity: number,
  now: number,
): Promise<BookingMove> {
  const date = change.booking_date ?? before.booking_date;
  const time = change.start_time ?? before.start_time;
  const query: DayQuery = {
    date,
    partySize: capacity,
    serviceId: before.service_id,
    resourceId: change.resource_id,
  };
  const ctx = await availability.loadedDay(businessId, query, now, executor);
  // In dynamic mode a booking chose its own length and any minute: moved, it keeps both.
  const dynamic = ctx.business.booking_mode === 'dynamic';
  if (dynamic) query.durationMinutes = before.duration_minutes;
  assertPartySize(ctx.business, capacity);
  const staff = before.source === 'staff';
  if (staff) assertStaffDate(date, ctx.business.timezone, now);
  const rules = toDayRules(ctx, query, now);
  const options = { onGrid: !staff && !dynamic, ignoreNoticeAndWindow: staff };
  // The booking's own time shows busy in the cache: only the statement can tell what else is.
  const check = checkStart(rules, time, options);
  if (!check.ok && check.reason !== 'slot_unavailable') throw startFailure(check);
  const fitting = checkStart({ ...rules, busy: [] }, time, options);
  if (!fitting.ok) throw startFailure(fitting);
  const keeps = !change.resource_id && fitting.freeResourceIds.includes(before.resource_id);
  const candidates = new Set([
    ...(keeps ? [before.resource_id] : []),
    ...(check.ok ? check.freeResourceIds : []),
    ...fitting.freeResourceIds,
  ]);
  const tz = ctx.business.timezone;
  const view = {
    booking_date: date,
    start_time: instantToWall(fitting.start, tz).time,
    end_time: instantToWall(fitting.end, tz).time,
    starts_at: new Date(fitting.start).toISOString(),
    ends_at: new Date(fitting.end).toISOString(),
  };
  return {
    candidates: [...candidates],
    ...view,
    during: rangeLiteral(fitting.heldStart, fitting.heldEnd),
    capacity,
    hold_lead_ms: HOLD_LEAD_MS,
    view,
  };
}

/** The contract's error for a change the statement refused. */
function changeRefusal(refusal: ChangeRefusal, statement: PreparedChange, before: BookingView): AppError {
  switch (refusal.refused) {
    case 'status':
      return new AppError('conflict', refusal.message);
    case 'slot_taken':
      return slotTaken();
    case 'resource_inactive':
      return invalidField('resource_id', 'is not an active resource of this business');
    case 'not_performed':
      return invalidField('resource_id', "does not perform this booking's service");
    case 'party_size':
      return invalidField('capacity', `must be between ${refusal.min} and ${refusal.max} for this business`);
    case 'resource_fit':
      return invalidField(
        statement.place?.capacity !== before.capacity ? 'capacity' : 'resource_id',
        `the resource takes parties of ${refusal.min} to ${refusal.max}`,
      );
  }
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
