import type { AvailabilityService } from '../availability/availability.service.ts';
import { toDayRules } from '../availability/day-rules.service.ts';
import { subscriptionOf } from '../billing/subscription.queries.ts';
import { type BookingCall, book, type PublicBookingDeposits } from '../bookings/new-booking.service.ts';
import { planPlacement } from '../bookings/placement.service.ts';
import { daySlots, freeOptions, todayIn } from '../engine/index.ts';
import { insertMessage } from '../messages/outbox.queries.ts';
import { guestPaymentPath } from '../payments/simulator.page.ts';
import { type Principal, randomToken, sha256 } from '../platform/auth.ts';
import type { ChangeFeed } from '../platform/change-feed.ts';
import type { Executor, Tx } from '../platform/db.ts';
import { AppError, conflict, notFound } from '../platform/errors.ts';
import type { Commit } from '../platform/idempotency.ts';
import { hhmm } from '../platform/schemas.ts';
import type { OfferOnPage, OfferPageView, OfferState } from './offer.page.ts';
import {
  claimOpening,
  expireOffers,
  findOfferByToken,
  insertOffer,
  lockOffer,
  markOfferTaken,
  type OfferRow,
  offerTerms,
  openOfferTimes,
  waitingEntries,
} from './offers.queries.ts';

/** Where an offer's link points: the page that shows it and books it. */
const offerUrl = (publicBaseUrl: string, token: string) => `${publicBaseUrl}/waitlist/offer/${token}`;

type WaitingEntry = Awaited<ReturnType<typeof waitingEntries>>[number];

/** Whether a start lies in the entry's window, both ends included; no window is the whole day. */
const inWindow = (entry: WaitingEntry, time: string) =>
  entry.preferred_time_from === null ||
  entry.preferred_time_to === null ||
  (hhmm(entry.preferred_time_from) <= time && time <= hhmm(entry.preferred_time_to));

/**
 * The earliest time the engine finds free for the entry's party and service on the date, inside
 * its window, under no open offer and not one the entry let lapse, with its placement; null when
 * none fits, or when the rules refuse the entry itself (a service withdrawn, a party the business
 * no longer seats, a party too large to book online), so one such entry never holds up the
 * openings queued behind it. The time is placed as an online booking would be: accepting the offer
 * is one, so an entry only the host could seat waits for the staff's "Book".
 */
async function fittingTime(
  tx: Tx,
  availability: AvailabilityService,
  businessId: string,
  entry: WaitingEntry,
  date: string,
  offered: ReadonlySet<string>,
  now: number,
) {
  const query = { date, partySize: entry.capacity, serviceId: entry.service_id };
  const lapsed = new Set(entry.offered_times.map(hhmm));
  try {
    const day = await availability.loadedDay(businessId, query, now, tx);
    const slot = daySlots(toDayRules(day, query, now)).slots.find(
      (candidate) =>
        freeOptions(candidate) > 0 &&
        inWindow(entry, candidate.time) &&
        !offered.has(candidate.time) &&
        !lapsed.has(candidate.time),
    );
    if (!slot) return null;
    return { slot, placement: planPlacement(day, { ...query, time: slot.time, mode: 'online' }, now) };
  } catch (error) {
    if (error instanceof AppError) return null;
    throw error;
  }
}

/**
 * Turns one opening (room freed on a date) into at most one offer: the oldest waiting entry of the
 * date whose party the engine finds a free grid time for, inside its window, not under another open
 * offer and not one it let lapse before, gets the earliest such time. The engine (the day's slots
 * for the entry's party and service, as a guest would see them: never in the past or inside the
 * minimum notice) is the one judge of which time fits. The guest is sent a `waitlist_offer` when
 * an email is known. Answers whether an offer was made.
 */
export async function offerOpening(
  tx: Tx,
  availability: AvailabilityService,
  opening: { business_id: string; booking_date: string },
  now: number,
  publicBaseUrl: string,
): Promise<boolean> {
  const { business_id: businessId, booking_date: date } = opening;
  const terms = await offerTerms(tx, businessId);
  if (!terms || date < todayIn(terms.timezone, now)) return false;
  const entries = await waitingEntries(tx, businessId, date);
  if (entries.length === 0) return false;
  const offered = new Set((await openOfferTimes(tx, businessId, date)).map(hhmm));
  for (const entry of entries) {
    const fit = await fittingTime(tx, availability, businessId, entry, date, offered, now);
    if (!fit) continue;
    const { slot, placement } = fit;
    const token = randomToken(48);
    const expiresAt = new Date(now + terms.waitlist_offer_minutes * 60_000);
    const offerId = await insertOffer(
      tx,
      {
        business_id: businessId,
        waitlist_entry_id: entry.id,
        booking_date: date,
        start_time: slot.time,
        resource_ids: placement.candidates[0]!,
        party: entry.capacity,
        token_hash: sha256(token),
        expires_at: expiresAt,
      },
      new Date(now),
    );
    if (!offerId) return false;
    if (entry.email) {
      await insertMessage(tx, {
        businessId,
        type: 'waitlist_offer',
        channel: 'email',
        to: entry.email,
        waitlistEntryId: entry.id,
        payload: {
          offer_id: offerId,
          booking_date: date,
          start_time: slot.time,
          starts_at: placement.times.starts_at,
          ends_at: placement.times.ends_at,
          party: entry.capacity,
          guest_name: `${entry.first_name} ${entry.last_name}`,
          offer_url: offerUrl(publicBaseUrl, token),
          expires_at: expiresAt.toISOString(),
        },
      });
    }
    return true;
  }
  return false;
}

const BATCH = 50;

/**
 * The offers job: open offers past their time expire and their dates are queued again, so the
 * time passes to the next fitting entry; then each queued opening, claimed in a transaction of its
 * own, becomes at most one offer. Answers how many expiries and openings it handled.
 */
export async function runOffers(
  withTx: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>,
  availability: AvailabilityService,
  publicBaseUrl: string,
  now: number,
): Promise<number> {
  let handled = await withTx((tx) => expireOffers(tx, new Date(now), BATCH));
  for (let claimed = 0; claimed < BATCH; claimed++) {
    const more = await withTx(async (tx) => {
      const opening = await claimOpening(tx);
      if (!opening) return false;
      await offerOpening(tx, availability, opening, now, publicBaseUrl);
      return true;
    });
    if (!more) break;
    handled++;
  }
  return handled;
}

/** An offer's link as its page shows it; undefined for a token no offer has. */
const offerByLink = (executor: Executor, token: string) => findOfferByToken(executor, sha256(token));

const stateOf = (offer: Pick<OfferRow, 'status' | 'expires_at'>, now: number): OfferState =>
  offer.status === 'taken'
    ? 'taken'
    : offer.status === 'expired' || offer.expires_at.getTime() <= now
      ? 'expired'
      : 'open';

function refuseUnless(state: OfferState): void {
  if (state === 'expired') throw new AppError('offer_expired', 'this waitlist offer has expired');
  if (state === 'taken') throw conflict('this waitlist offer has already been booked');
}

/**
 * The guest holding the link books the offered time online: every rule of an online booking
 * applies (the online party limit, the grid, notice and window, pacing, the deposit, the monthly
 * quota), as the hosted page would apply them. It is not trusted with the customer's record, so
 * the guest's names stay on the booking and the stored customer is attached by phone, unchanged.
 */
function guestOf(offer: OfferRow): Principal & { businessId: string } {
  return {
    kind: 'publishable_key',
    businessId: offer.business_id,
    developerId: offer.developer_id,
    userId: null,
    scopes: new Set(),
    role: null,
    actor: `waitlist_offer:${offer.id}`,
    credentialId: `waitlist_offer:${offer.id}`,
    rateLimitPerMinute: null,
    subscription: subscriptionOf(offer),
    sandbox: offer.is_dev,
  };
}

/**
 * Accepts an offer by its link's token: books its time for its entry's guest through the one
 * booking use case as an online booking with the business's deposit, and in the same transaction,
 * with the offer's row locked first (so concurrent accepts of one offer take turns and one books),
 * marks it taken and the entry booked. 404 for an unknown token, 410 `offer_expired` past its
 * time, 409 `conflict` when already booked, 409 `slot_unavailable` when the time was taken
 * meanwhile (the offer stays open until it expires); any refusal of an online booking otherwise.
 */
export async function acceptOffer<Sent>(
  executor: Executor,
  availability: AvailabilityService,
  deposits: PublicBookingDeposits,
  token: string,
  now: number,
  request: { bookedDates: readonly string[] | null },
  commit: Commit<Sent>,
  changes: Pick<ChangeFeed, 'bookingDaysChanged'>,
): Promise<Sent> {
  const offer = await offerByLink(executor, token);
  if (!offer) throw notFound('waitlist offer');
  refuseUnless(stateOf(offer, now));
  const call: BookingCall<Sent> = {
    caller: guestOf(offer),
    now,
    request,
    commit: (work) =>
      commit(async (tx) => {
        refuseUnless(stateOf(await lockOffer(tx, offer.business_id, offer.id), now));
        const made = await work(tx);
        // `book` answers `{ booking }`, whatever its commit is typed to carry.
        await markOfferTaken(tx, offer, (made as { booking: { id: string } }).booking.id);
        return made;
      }),
  };
  const sent = await book(
    availability,
    deposits,
    {
      date: offer.booking_date,
      time: hhmm(offer.start_time),
      partySize: offer.party,
      serviceId: offer.service_id,
      customer: {
        first_name: offer.first_name,
        last_name: offer.last_name,
        phone: offer.phone,
        email: offer.email,
      },
      source: 'online',
    },
    call,
  );
  // This process's caches learn of the booking at once, as after any booking route (app.ts, onSend).
  if (request.bookedDates) changes.bookingDaysChanged(offer.business_id, request.bookedDates);
  return sent;
}

const onPage = (offer: OfferRow, now: number): OfferOnPage => ({
  state: stateOf(offer, now),
  businessName: offer.business_name,
  language: offer.notification_language,
  timezone: offer.timezone,
  timeFormat: offer.time_format,
  bookingDate: offer.booking_date,
  startTime: hhmm(offer.start_time),
  party: offer.party,
  expiresAt: offer.expires_at,
  confirmationCode: offer.confirmation_code,
});

/** What the offer's page shows on GET: never books (mail scanners open links). */
export async function offerPageView(executor: Executor, token: string, now: number): Promise<OfferPageView> {
  const offer = await offerByLink(executor, token);
  return offer ? { kind: 'offer', offer: onPage(offer, now) } : { kind: 'unknown' };
}

/**
 * The page's button: accepts the offer as the JSON route does, then shows the booking made (with
 * where to pay its deposit when it waits for one), or why none was (the page of an unknown,
 * expired or already booked offer; the time taken meanwhile, or any other refusal of an online
 * booking).
 */
export async function acceptOfferOnPage(
  executor: Executor,
  availability: AvailabilityService,
  deposits: PublicBookingDeposits,
  token: string,
  now: number,
  request: { bookedDates: readonly string[] | null },
  commit: Commit<{ booking: { payment_client_secret?: string } }>,
  changes: Pick<ChangeFeed, 'bookingDaysChanged'>,
): Promise<OfferPageView> {
  let refused = false;
  let paymentSecret: string | undefined;
  try {
    const made = await acceptOffer(executor, availability, deposits, token, now, request, commit, changes);
    paymentSecret = made.booking.payment_client_secret;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    refused = true;
  }
  const view = await offerPageView(executor, token, now);
  if (view.kind === 'unknown') return view;
  if (view.offer.state === 'taken') {
    return paymentSecret
      ? { kind: 'booked', offer: view.offer, payPath: guestPaymentPath(paymentSecret) }
      : { kind: 'booked', offer: view.offer };
  }
  // Refused while the offer is still open: the time cannot be booked any more (taken, or closed).
  return refused && view.offer.state === 'open' ? { kind: 'slot_taken', offer: view.offer } : view;
}
