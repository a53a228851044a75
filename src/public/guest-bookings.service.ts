import type { AvailabilityService } from '../availability/availability.service.ts';
import { lockBooking } from '../bookings/bookings.queries.ts';
import { changeBooking } from '../bookings/bookings.service.ts';
import { normalizePhone } from '../customers/customers.service.ts';
import type { BookingStatus } from '../engine/status.ts';
import { allowsMove } from '../engine/status.ts';
import type { Executor, Tx } from '../platform/db.ts';
import { AppError, invalidField, notFound } from '../platform/errors.ts';
import { findBookingsByCode, type GuestBookingRow } from './guest-bookings.queries.ts';

/** What proves a guest made the booking: the email or the phone given with it (both must match when both are sent). */
export interface GuestContact {
  email?: string;
  phone?: string;
}

/** The email given with the booking; for one made before those were kept, the customer's. */
const emailGiven = ({ view }: GuestBookingRow) =>
  view.guest === null ? view.customer.email : view.guest.email;

const normalEmail = (email: string | null) => email?.trim().toLowerCase() ?? '';

/**
 * Whether the contact sent is the one given with the booking. Only a value with something in it
 * matches: an empty email, or a phone without digits (kept from before phones were checked),
 * would otherwise prove every booking that lacks one too.
 */
function matches(row: GuestBookingRow, contact: GuestContact): boolean {
  if (contact.email !== undefined) {
    const email = normalEmail(contact.email);
    if (email === '' || email !== normalEmail(emailGiven(row))) return false;
  }
  if (contact.phone !== undefined) {
    const phone = normalizePhone(contact.phone);
    if (!/\d/.test(phone) || phone !== row.customer_phone_normalized) return false;
  }
  return true;
}

/**
 * The booking with this code whose guest gave this email or phone; within `businessId` when the
 * caller's credential names a business. Every failure is the same 404, so a caller learns nothing
 * of which part was wrong. Codes are unique per business only: were two to match anywhere, the
 * latest made is the guest's.
 */
async function findGuestBooking(
  executor: Executor,
  code: string,
  contact: GuestContact,
  businessId: string | undefined,
): Promise<GuestBookingRow> {
  if (contact.email === undefined && contact.phone === undefined) {
    throw invalidField('email', 'send the email or the phone given with the booking');
  }
  const found = (await findBookingsByCode(executor, code, businessId))
    .filter((row) => matches(row, contact))
    .sort((a, b) => Date.parse(b.view.created_at) - Date.parse(a.view.created_at));
  if (!found[0]) throw notFound('booking');
  return found[0];
}

const HOUR_MS = 3_600_000;

/**
 * Until when a guest may cancel or change their booking: a cut-off before the start; null when the
 * status no longer allows it (a guest acts on a booking only while they may still cancel it).
 */
function openToGuestUntil(status: BookingStatus, startsAt: Date, cutoffHours: number): Date | null {
  if (!allowsMove(status, 'cancelled', 'guest')) return null;
  return new Date(startsAt.getTime() - cutoffHours * HOUR_MS);
}

/** What a guest sees of their booking: no staff notes, no resource, nothing of the customer record. */
function toGuestBookingView(row: Omit<GuestBookingRow, 'customer_phone_normalized'>, now: number) {
  const { view } = row;
  const status = view.status as BookingStatus;
  const until = openToGuestUntil(status, new Date(view.starts_at), row.cancellation_cutoff_hours);
  const changeUntil = openToGuestUntil(status, new Date(view.starts_at), row.guest_change_cutoff_hours);
  return {
    confirmation_code: view.confirmation_code,
    status: view.status,
    business: {
      id: view.business_id,
      name: row.business_name,
      slug: row.business_slug,
      timezone: row.business_timezone,
    },
    booking_date: view.booking_date,
    start_time: view.start_time,
    end_time: view.end_time,
    duration_minutes: view.duration_minutes,
    capacity: view.capacity,
    service_id: view.service_id,
    // What was given with this booking, never the customer its phone matched.
    guest: view.guest,
    customer_notes: view.customer_notes,
    deposit: view.deposit && {
      status: view.deposit.status,
      type: view.deposit.type,
      amount_cents: view.deposit.amount_cents,
    },
    starts_at: view.starts_at,
    ends_at: view.ends_at,
    created_at: view.created_at,
    cancellable_until: until?.toISOString() ?? null,
    can_cancel: until !== null && now < until.getTime(),
    changeable_until: changeUntil?.toISOString() ?? null,
    can_change: changeUntil !== null && now < changeUntil.getTime(),
  };
}

export type GuestBookingView = ReturnType<typeof toGuestBookingView>;

export async function viewGuestBooking(
  executor: Executor,
  code: string,
  contact: GuestContact,
  businessId: string | undefined,
  now: number,
): Promise<GuestBookingView> {
  return toGuestBookingView(await findGuestBooking(executor, code, contact, businessId), now);
}

/**
 * The guest's booking, locked, while the guest may still act on it: its status allows it and the
 * cut-off before its start (`cutoffHours`) has not passed; otherwise the refusal the guest is told.
 */
async function lockOpenToGuest(
  tx: Tx,
  found: GuestBookingRow,
  act: 'cancelled' | 'changed',
  cutoffHours: number,
  now: number,
) {
  const locked = await lockBooking(tx, found.view.business_id, found.view.id);
  if (!locked) throw notFound('booking');
  const until = openToGuestUntil(locked.status, locked.starts_at, cutoffHours);
  if (until === null) throw new AppError('conflict', `a ${locked.status} booking cannot be ${act}`);
  if (now >= until.getTime()) {
    throw new AppError(
      act === 'cancelled' ? 'cancellation_cutoff_passed' : 'change_cutoff_passed',
      cutoffHours > 0
        ? `the booking can be ${act} online until ${cutoffHours} h before it starts; please contact the business`
        : 'the booking has already started; please contact the business',
    );
  }
  return locked;
}

/**
 * Who cancels or changes in the audit row: the guest, or whoever acts for them (a reservation
 * partner: `partner:<name>`), with no credential of the business.
 */
const guestActor = (businessId: string, actor = 'guest') => ({
  businessId,
  actor,
  kind: 'api_key' as const,
  scopes: new Set<never>(),
});

/**
 * The guest cancels their booking, until the business's cut-off before the start: the status moves
 * as a staff cancellation moves it (`booking.status_changed` audited with the guest as actor,
 * `booking.cancelled` fired), and a deposit is left as a staff cancellation leaves it.
 */
export async function cancelGuestBooking(
  tx: Tx,
  availability: AvailabilityService,
  code: string,
  contact: GuestContact,
  businessId: string | undefined,
  now: number,
): Promise<GuestBookingView> {
  return cancelAsGuest(tx, availability, await findGuestBooking(tx, code, contact, businessId), now);
}

/**
 * A booking found for its guest (by its code and contact, or by a partner that made it),
 * cancelled under the guest's rules.
 */
export async function cancelAsGuest(
  tx: Tx,
  availability: AvailabilityService,
  found: GuestBookingRow,
  now: number,
  actor?: string,
): Promise<GuestBookingView> {
  await lockOpenToGuest(tx, found, 'cancelled', found.cancellation_cutoff_hours, now);
  const { booking: cancelled } = await changeBooking(
    tx,
    availability,
    guestActor(found.view.business_id, actor),
    found.view.id,
    { status: 'cancelled' },
    now,
  );
  return toGuestBookingView({ ...found, view: cancelled }, now);
}

/** What a guest may change of their booking: its date, its start, its party. */
export interface GuestChange {
  booking_date?: string;
  start_time?: string;
  capacity?: number;
}

/**
 * The guest moves their booking to another time or party, until the business's change cut-off
 * before the start, under every rule of a new online booking (grid, notice, window, hours, online
 * party limit, pacing), in one statement: the old time stays held until the new one is taken, and
 * a refusal leaves the booking as it was. The venue's Today and the guest's rescheduled message
 * follow from `booking.rescheduled`. A deposit is the venue's to change: a new party (its amount
 * may depend on it), or a new time for a card hold (placed on a schedule of the start), is 409
 * `deposit_would_change`.
 */
export async function changeGuestBooking(
  tx: Tx,
  availability: AvailabilityService,
  code: string,
  contact: GuestContact,
  businessId: string | undefined,
  change: GuestChange,
  now: number,
): Promise<GuestBookingView> {
  if (change.booking_date === undefined && change.start_time === undefined && change.capacity === undefined) {
    throw invalidField('start_time', 'send the new booking_date, start_time or capacity');
  }
  return changeAsGuest(tx, availability, await findGuestBooking(tx, code, contact, businessId), change, now);
}

/** A booking found for its guest, changed under the guest's rules (`changeGuestBooking`). */
export async function changeAsGuest(
  tx: Tx,
  availability: AvailabilityService,
  found: GuestBookingRow,
  change: GuestChange,
  now: number,
  actor?: string,
): Promise<GuestBookingView> {
  const locked = await lockOpenToGuest(tx, found, 'changed', found.guest_change_cutoff_hours, now);
  const deposit = found.view.deposit;
  const newParty = change.capacity !== undefined && change.capacity !== locked.capacity;
  const newTime =
    (change.booking_date ?? found.view.booking_date) !== found.view.booking_date ||
    (change.start_time ?? found.view.start_time) !== found.view.start_time;
  if (deposit && (newParty || (newTime && deposit.type === 'authorization_hold'))) {
    throw new AppError(
      'deposit_would_change',
      newParty
        ? 'the party of a booking with a deposit is changed by the business; please contact them'
        : 'the time of a booking with a card hold is changed by the business; please contact them',
    );
  }
  const { booking: changed } = await changeBooking(
    tx,
    availability,
    guestActor(found.view.business_id, actor),
    found.view.id,
    change,
    now,
    'guest',
  );
  return toGuestBookingView({ ...found, view: changed }, now);
}
