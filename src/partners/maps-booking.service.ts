/**
 * The booking server of the Maps Booking v3 partner API (docs/partners.md): what a reservation
 * partner asks of a business listed with it, answered from the same engine, statements and guest
 * rules as the API. Its messages are the spec's, as maps-booking.view.ts declares them; a refusal
 * the spec makes a business failure is answered as `booking_failure`, the others as HTTP errors.
 */

import type { FastifyRequest } from 'fastify';
import type { AvailabilityService } from '../availability/availability.service.ts';
import type { SlotView } from '../availability/day-questions.service.ts';
import { findBooking } from '../bookings/bookings.service.ts';
import type { BookingView } from '../bookings/bookings.view.ts';
import { book } from '../bookings/new-booking.service.ts';
import { normalizePhone } from '../customers/customers.service.ts';
import { depositTerms } from '../deposits/deposits.queries.ts';
import { asksDeposit } from '../deposits/deposits.service.ts';
import { instantToWall, wallTimeToInstant } from '../engine/index.ts';
import type { BookingStatus } from '../engine/status.ts';
import { isFoodEstablishment } from '../engine/venue-kind.ts';
import type { Principal } from '../platform/auth.ts';
import { type Db, type Executor, withTx } from '../platform/db.ts';
import { AppError, type ErrorCode } from '../platform/errors.ts';
import { chargeToBusiness } from '../platform/fair-share.ts';
import { isUuid } from '../platform/schemas.ts';
import { findGuestBookingById } from '../public/guest-bookings.queries.ts';
import { cancelAsGuest, changeAsGuest, type GuestChange } from '../public/guest-bookings.service.ts';
import type {
  BookingFailureCause,
  CreateBookingRequest,
  SlotIn,
  SlotTimeIn,
  UpdateBookingRequest,
  UserInformationIn,
  V3Booking,
  V3BookingStatus,
} from './maps-booking.view.ts';
import {
  activeServicesOf,
  bookingOfToken,
  insertPartnerBooking,
  lockToken,
  partnerBooking,
  upcomingBookingsOfUser,
} from './partners.queries.ts';
import { type Partner, partnerAt } from './partners.service.ts';

type Caller = Principal & { businessId: string };

/** The service id of a venue's plain reservation (a table, no service of its own). */
export const RESERVATION_SERVICE = 'reservation';

export interface MapsBookingDeps {
  db: Db;
  availability: AvailabilityService;
}

/** A malformed call or one naming what the partner cannot reach: HTTP 400, as the spec's status table has it. */
const badRequest = (message: string) => new AppError('bad_request', message);

const unknownMerchant = (merchantId: string) =>
  badRequest(`merchant_id ${JSON.stringify(merchantId)} names no merchant listed with this partner`);

/** A listed business the partner acts on, with the rules its times are read in. */
interface Merchant {
  caller: Caller;
  timezone: string;
}

/** The merchant a call names: a business listed with the partner, else 400 (not 404: a bad argument). */
export async function merchantOf(
  deps: MapsBookingDeps,
  partner: Partner,
  merchantId: string,
  now: number,
): Promise<Merchant> {
  if (!isUuid(merchantId)) throw unknownMerchant(merchantId);
  const caller = await partnerAt(deps.db, partner, merchantId).catch((error: unknown) => {
    throw error instanceof AppError && error.code === 'not_found' ? unknownMerchant(merchantId) : error;
  });
  const rules = await deps.availability.businessRules(caller.businessId, now);
  if (!rules) throw badRequest('the merchant is gone');
  return { caller, timezone: rules.timezone };
}

/**
 * The services a merchant lists with a partner: a venue that serves at its tables lists its plain
 * reservation alone (the spec's dining vertical takes one service per merchant, and a table is
 * what a guest books there), any other venue its active services, else its plain reservation.
 * Any of its active services may still be booked by id.
 */
export async function offeredServices(
  executor: Executor,
  business: { id: string; business_type: string | null },
): Promise<{ id: string; name: string; description: string | null; seats: number | null }[]> {
  const reservation = { id: RESERVATION_SERVICE, name: 'Reservation', description: null, seats: null };
  if (isFoodEstablishment(business.business_type)) return [reservation];
  const services = await activeServicesOf(executor, business.id);
  return services.length > 0 ? services : [reservation];
}

/** Our service for a partner's `service_id`: none for the plain reservation, else one of the merchant's `known` ones (400 otherwise). */
function serviceIn(known: ReadonlySet<string>, serviceId: string): string | undefined {
  if (serviceId === RESERVATION_SERVICE) return undefined;
  if (!known.has(serviceId)) {
    throw badRequest(`service_id ${JSON.stringify(serviceId)} names no service of the merchant`);
  }
  return serviceId;
}

/** `serviceIn` the merchant's active services, read for one slot. */
const serviceOf = async (executor: Executor, businessId: string, serviceId: string) =>
  serviceIn(new Set((await activeServicesOf(executor, businessId)).map((s) => s.id)), serviceId);

/** An int64 of the spec (a JSON string, or a number as some clients send it), as a number. */
export const int64 = (value: string | number): number => (typeof value === 'number' ? value : Number(value));

/** The latest start a partner may name: the calendar arithmetic's years end at 2999. */
const LAST_START_MS = Date.UTC(3000, 0, 1);

const withinYears = (instant: number) => instant >= 0 && instant < LAST_START_MS;

/** A slot's start as an instant (ms); 400 for one outside the years a booking may have. */
function startOf(startSec: string | number): number {
  const instant = int64(startSec) * 1000;
  if (!withinYears(instant)) throw badRequest('start_sec is outside the years 1970-2999');
  return instant;
}

/** A slot or slot time echoed back as the spec prints it: its int64 values as strings. */
const printedLongs = <T extends { start_sec: string | number; duration_sec?: string | number }>(
  slot: T,
): T => ({
  ...slot,
  start_sec: String(int64(slot.start_sec)),
  ...(slot.duration_sec === undefined ? {} : { duration_sec: String(int64(slot.duration_sec)) }),
});

/** What a slot offers: whether the party can book it now, and how many such bookings it takes. */
interface SlotOffer {
  available: boolean;
  open: number;
}

const NOT_OFFERED: SlotOffer = { available: false, open: 0 };

/**
 * The days one call asks, each computed once for it: the availability the API answers (a day
 * guests asked is read from the cache, so a partner sees what a guest sees), never kept in that
 * cache, so a partner asking a thousand days pushes no guest's day out of it. A party or date the
 * venue does not take online is a day without slots, not an error.
 */
function daysOfCall(deps: MapsBookingDeps, businessId: string) {
  const days = new Map<string, Promise<SlotView[]>>();
  return (date: string, partySize: number, serviceId: string | undefined) => {
    const key = `${date}|${partySize}|${serviceId ?? ''}`;
    let day = days.get(key);
    if (!day) {
      day = deps.availability
        .day({ businessId, date, partySize, serviceId, perResource: false, channel: 'online', keep: false })
        .then(
          (answer) => answer.slots,
          (error: unknown) => {
            if (error instanceof AppError && error.status < 500) return [];
            throw error;
          },
        );
      days.set(key, day);
    }
    return day;
  };
}

/**
 * Whether the party may book the start online now: the start must be a minute of the grid in the
 * venue's zone; every online rule applies (notice, window, hours, periods, pacing, the online
 * party limit).
 */
async function offerAt(
  dayOf: ReturnType<typeof daysOfCall>,
  merchant: Merchant,
  serviceId: string | undefined,
  startSec: number,
  partySize: number,
): Promise<SlotOffer> {
  const instant = startSec * 1000;
  if (!withinYears(instant)) return NOT_OFFERED;
  const { date, time } = instantToWall(instant, merchant.timezone);
  // A start between minutes, or in an hour the clocks skip or repeat, is no start of the grid.
  if (wallTimeToInstant(date, time, merchant.timezone) !== instant) return NOT_OFFERED;
  const slots = await dayOf(date, partySize, serviceId);
  const slot = slots.find((candidate) => candidate.time === time);
  if (!slot || !('remaining_resources' in slot) || !slot.available) return NOT_OFFERED;
  return { available: true, open: slot.seats_left ?? slot.remaining_resources };
}

/** A party of a slot; a slot without one (an appointment) is for one person. */
const partyOf = (resources: { party_size?: number } | undefined) => resources?.party_size ?? 1;

/** BatchAvailabilityLookup: one answer per slot time asked, in its order, each echoing it. */
export async function batchAvailabilityLookup(
  deps: MapsBookingDeps,
  merchant: Merchant,
  slotTimes: readonly SlotTimeIn[],
) {
  const known = new Set((await activeServicesOf(deps.db, merchant.caller.businessId)).map((s) => s.id));
  for (const { service_id } of slotTimes) serviceIn(known, service_id);
  const dayOf = daysOfCall(deps, merchant.caller.businessId);
  // One after the other: the call takes one connection of the business's share at a time.
  const availability = [];
  for (const slotTime of slotTimes) {
    const offer = await offerAt(
      dayOf,
      merchant,
      serviceIn(known, slotTime.service_id),
      int64(slotTime.start_sec),
      partyOf(slotTime.resource_ids),
    );
    availability.push({ slot_time: printedLongs(slotTime), available: offer.available });
  }
  return { slot_time_availability: availability };
}

/** CheckAvailability (deprecated by the spec, still answered): how many bookings the slot takes now. */
export async function checkAvailability(deps: MapsBookingDeps, merchant: Merchant, slot: SlotIn) {
  const serviceId = await serviceOf(deps.db, merchant.caller.businessId, slot.service_id);
  const offer = await offerAt(
    daysOfCall(deps, merchant.caller.businessId),
    merchant,
    serviceId,
    int64(slot.start_sec),
    partyOf(slot.resources),
  );
  return { slot: printedLongs(slot), count_available: offer.open };
}

/** Our statuses as the spec's. */
const V3_STATUS: Record<BookingStatus, V3BookingStatus> = {
  pending: 'PENDING_MERCHANT_CONFIRMATION',
  confirmed: 'CONFIRMED',
  checked_in: 'CONFIRMED',
  completed: 'CONFIRMED',
  cancelled: 'CANCELED',
  no_show: 'NO_SHOW',
};

/**
 * A booking as the spec's Booking: its slot as booked (the venue's length, in seconds since the
 * epoch as strings), the guest as given with it (the phone as its matching key: never another
 * spelling of a returning guest's record), its status, and no prepayment (deposits are the
 * venue's page's).
 */
export function toV3Booking(view: BookingView, userId: string | null): V3Booking {
  const person = view.guest ?? view.customer;
  const email = view.guest ? view.guest.email : view.customer.email;
  return {
    booking_id: view.id,
    slot: {
      merchant_id: view.business_id,
      service_id: view.service_id ?? RESERVATION_SERVICE,
      start_sec: String(Date.parse(view.starts_at) / 1000),
      duration_sec: String(view.duration_minutes * 60),
      resources: { party_size: view.capacity },
      confirmation_mode: 'CONFIRMATION_MODE_SYNCHRONOUS',
    },
    user_information: {
      ...(userId ? { user_id: userId } : {}),
      given_name: person.first_name,
      family_name: person.last_name,
      ...(view.customer.phone ? { telephone: normalizePhone(view.customer.phone) } : {}),
      ...(email ? { email } : {}),
    },
    status: V3_STATUS[view.status as BookingStatus],
    payment_information: { prepayment_status: 'PREPAYMENT_NOT_PROVIDED' },
  };
}

/** The spec's cause for a refusal of our rules; undefined for one that is no business failure. */
const CAUSE_OF: Partial<Record<ErrorCode, BookingFailureCause>> = {
  slot_unavailable: 'SLOT_UNAVAILABLE',
  outside_operating_hours: 'SLOT_UNAVAILABLE',
  outside_booking_window: 'SLOT_UNAVAILABLE',
  party_too_large_online: 'SLOT_UNAVAILABLE',
  cancellation_cutoff_passed: 'OUTSIDE_CANCELLATION_WINDOW',
  change_cutoff_passed: 'OUTSIDE_CANCELLATION_WINDOW',
  deposit_would_change: 'PAYMENT_ERROR',
  plan_limit_reached: 'SLOT_UNAVAILABLE',
};

/** A refusal as the spec's business failure (HTTP 200), or the error itself when it is none. */
function failureOf(error: unknown, cause?: BookingFailureCause) {
  if (!(error instanceof AppError)) throw error;
  const found = cause ?? CAUSE_OF[error.code];
  if (!found) throw error;
  return { booking_failure: { cause: found, description: error.message } };
}

/** The guest of a partner's booking, as our booking statement takes a guest. */
function guestOf(user: UserInformationIn) {
  const given = user.given_name?.trim();
  const family = user.family_name?.trim();
  const telephone = user.telephone?.trim();
  if (!given || !family || !telephone) {
    throw badRequest('user_information needs given_name, family_name and telephone');
  }
  return { first_name: given, last_name: family, phone: telephone, email: user.email?.trim() || null };
}

/**
 * CreateBooking: a booking of source `partner` under every online rule, in one transaction with
 * the partner's record of it (its user, its idempotency token). A token already used for a
 * booking of this merchant answers that booking, however often it is retried: calls with one
 * token take turns on a lock of the token, so one sent many times at once makes one booking and
 * every call answers it. A venue that asks a deposit is refused with `PAYMENT_ERROR`: a deposit
 * is paid on the venue's own page.
 */
export async function createPartnerBooking(
  deps: MapsBookingDeps,
  merchant: Merchant,
  partner: Partner,
  body: CreateBookingRequest,
  request: { bookedDates: readonly string[] | null },
  now: number,
): Promise<
  { booking: V3Booking } | { booking_failure: { cause: BookingFailureCause; description: string } }
> {
  const { caller } = merchant;
  const token = body.idempotency_token;
  const earlier = await answeredToken(deps.db, partner, caller.businessId, token);
  if (earlier) return earlier;
  const serviceId = await serviceOf(deps.db, caller.businessId, body.slot.service_id);
  const guest = guestOf(body.user_information);
  // The settings as stored: a venue that has just begun to ask deposits is refused at once.
  const terms = await depositTerms(deps.db, caller.businessId);
  if (terms && asksDeposit(terms)) {
    return failureOf(
      new AppError('slot_unavailable', 'the venue asks a deposit, which is paid on its own booking page'),
      'PAYMENT_ERROR',
    );
  }
  const start = startOf(body.slot.start_sec);
  const { date, time } = instantToWall(start, merchant.timezone);
  const userId = body.user_information.user_id ?? null;
  try {
    assertWholeMinute(start, date, time, merchant.timezone);
    return await book(
      deps.availability,
      null,
      {
        date,
        time,
        partySize: partyOf(body.slot.resources),
        serviceId,
        customer: guest,
        customerNotes: body.additional_request?.trim() || null,
        source: 'partner',
        partnerId: partner.id,
      },
      {
        caller,
        now,
        request,
        commit: (work) =>
          withTx(deps.db, async (tx) => {
            await lockToken(tx, partner.id, caller.businessId, token);
            const answered = await answeredToken(tx, partner, caller.businessId, token);
            if (answered) return answered;
            // What the use case answers is made for the API; the partner's answer is the spec's.
            const { booking } = (await work(tx)) as { booking: { id: string } };
            await insertPartnerBooking(tx, {
              business_id: caller.businessId,
              booking_id: booking.id,
              partner_id: partner.id,
              user_id: userId,
              idempotency_token: token,
            });
            return { booking: toV3Booking(await findBooking(tx, caller.businessId, booking.id), userId) };
          }),
      },
    );
  } catch (error) {
    return failureOf(error);
  }
}

/**
 * A start the partner names is a whole minute of the venue's clock (a grid start is one): one
 * between minutes is not the slot it would be cut to.
 */
function assertWholeMinute(start: number, date: string, time: string, timezone: string): void {
  if (wallTimeToInstant(date, time, timezone) !== start) {
    throw new AppError('slot_unavailable', "start_sec is no start of the venue's grid");
  }
}

/** The booking a token already made of the business, answered for the user it was made for. */
async function answeredToken(executor: Executor, partner: Partner, businessId: string, token: string) {
  const made = await bookingOfToken(executor, partner.id, businessId, token);
  if (!made) return null;
  return { booking: toV3Booking(await findBooking(executor, businessId, made.booking_id), made.user_id) };
}

/**
 * A booking the partner made, at a business still listed with it (400 or 404 otherwise); the rest
 * of the call counts against that business's share of the database.
 */
async function partnersBooking(
  deps: MapsBookingDeps,
  partner: Partner,
  bookingId: string,
  request: FastifyRequest,
  unknown: () => AppError,
) {
  const made = isUuid(bookingId) ? await partnerBooking(deps.db, partner.id, bookingId) : undefined;
  if (!made) throw unknown();
  const caller = await partnerAt(deps.db, partner, made.business_id);
  chargeToBusiness(request, caller.businessId);
  return { caller, userId: made.user_id };
}

/** GetBookingStatus: the booking's status and prepayment; 404 for a booking the partner did not make. */
export async function bookingStatus(
  deps: MapsBookingDeps,
  partner: Partner,
  bookingId: string,
  request: FastifyRequest,
) {
  const { caller } = await partnersBooking(
    deps,
    partner,
    bookingId,
    request,
    () => new AppError('not_found', 'booking not found'),
  );
  const view = await findBooking(deps.db, caller.businessId, bookingId);
  return {
    booking_id: view.id,
    booking_status: V3_STATUS[view.status as BookingStatus],
    prepayment_status: 'PREPAYMENT_NOT_PROVIDED',
  };
}

/** The most bookings one ListBookings answers: a partner names its users, and one could have many. */
export const MAX_LISTED_BOOKINGS = 200;

/** ListBookings: the user's bookings still to come and not cancelled, at the businesses listed with the partner. */
export async function userBookings(deps: MapsBookingDeps, partner: Partner, userId: string, now: number) {
  const made = await upcomingBookingsOfUser(deps.db, partner.id, userId, new Date(now), MAX_LISTED_BOOKINGS);
  return { bookings: made.map(({ view }) => toV3Booking(view, userId)) };
}

/**
 * UpdateBooking: a cancellation (`status: CANCELED`) or a change of start or party, under the
 * rules a guest acts under on their own booking (the cut-offs, every online rule of the new
 * time, the old time held until the new one is taken). Fields not sent stay as they are.
 */
export async function updatePartnerBooking(
  deps: MapsBookingDeps,
  partner: Partner,
  body: UpdateBookingRequest,
  request: FastifyRequest,
  now: number,
) {
  const { booking } = body;
  const { caller, userId } = await partnersBooking(deps, partner, booking.booking_id, request, () =>
    badRequest(`booking_id ${JSON.stringify(booking.booking_id)} names no booking this partner made`),
  );
  request.principal = caller;
  if (booking.status !== undefined && booking.status !== 'CANCELED') {
    throw badRequest('status may only be CANCELED: a partner cancels, the venue confirms');
  }
  const found = await findGuestBookingById(deps.db, caller.businessId, booking.booking_id);
  if (!found) throw badRequest('the booking is gone');
  try {
    if (booking.status === 'CANCELED') {
      await withTx(deps.db, (tx) => cancelAsGuest(tx, deps.availability, found, now, caller.actor));
    } else {
      const change: GuestChange = {};
      const slot = booking.slot;
      if (slot?.start_sec !== undefined) {
        const start = startOf(slot.start_sec);
        const { date, time } = instantToWall(start, found.business_timezone);
        assertWholeMinute(start, date, time, found.business_timezone);
        change.booking_date = date;
        change.start_time = time;
      }
      const party = slot?.resources?.party_size;
      if (party !== undefined) change.capacity = party;
      if (Object.keys(change).length === 0) {
        throw badRequest(
          'send booking.status CANCELED, or a new slot.start_sec or slot.resources.party_size',
        );
      }
      await withTx(deps.db, (tx) => changeAsGuest(tx, deps.availability, found, change, now, caller.actor));
    }
  } catch (error) {
    if (error instanceof AppError && error.code === 'conflict') {
      // The status as it is now, which the guest's rules refused: cancelled already, or past changing.
      const current = await findBooking(deps.db, caller.businessId, booking.booking_id);
      return failureOf(
        error,
        current.status === 'cancelled' ? 'BOOKING_ALREADY_CANCELLED' : 'BOOKING_NOT_CANCELLABLE',
      );
    }
    return failureOf(error);
  }
  const view = await findBooking(deps.db, caller.businessId, booking.booking_id);
  return { booking: toV3Booking(view, userId) };
}
