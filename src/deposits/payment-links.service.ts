import { randomUUID } from 'node:crypto';
import type { BookingDeposit } from '../bookings/bookings.service.ts';
import type { BookingView } from '../bookings/bookings.view.ts';
import type { BookingDeposits, BookingRequest } from '../bookings/new-booking.service.ts';
import { instantToWall } from '../engine/index.ts';
import { enqueueEmail, venueInSubject } from '../messages/sender.jobs.ts';
import { notFound } from '../platform/errors.ts';
import { depositTerms } from './deposits.queries.ts';
import {
  type Caller,
  CURRENCY,
  type DepositDeps,
  depositProcessor,
  euros,
  idempotencyKey,
} from './deposits.service.ts';

/** A staff deposit's payment link lasts this long; unpaid by then, the booking is cancelled. */
export const CHECKOUT_LIFETIME_MS = 2 * 3_600_000;

/** A staff deposit booking's payment link, made before the booking's transaction. */
interface PreparedCheckout extends BookingDeposit {
  checkoutUrl: string;
  expiresAt: Date;
  businessName: string;
  timezone: string;
}

/**
 * Prepares the payment link of a staff booking taken with a deposit: a charge of the deposit per
 * person times the party, through the processor's checkout page, valid for 2 hours.
 */
async function prepareStaffDeposit(
  deps: DepositDeps,
  caller: Caller,
  request: { partySize: number; email: string },
  now: number,
): Promise<PreparedCheckout> {
  const terms = await depositTerms(deps.db, caller.businessId);
  if (!terms) throw notFound('business');
  const { processor, destination } = await depositProcessor(deps, caller.businessId, terms.is_dev);
  const bookingId = randomUUID();
  const amount = terms.default_deposit_amount_cents * request.partySize;
  const expiresAt = new Date(now + CHECKOUT_LIFETIME_MS);
  const page = `${deps.publicBaseUrl}/book/${terms.slug}?booking=${bookingId}`;
  const checkout = await processor.createPaymentCheckout({
    amountCents: amount,
    currency: CURRENCY,
    description: `Deposit for your booking at ${terms.name}`,
    customerEmail: request.email,
    expiresAt,
    successUrl: `${page}&deposit=paid`,
    cancelUrl: `${page}&deposit=cancelled`,
    destinationAccountId: destination,
    metadata: { booking_id: bookingId, business_id: caller.businessId },
    idempotencyKey: idempotencyKey(bookingId, 'checkout'),
  });
  return {
    bookingId,
    row: {
      type: 'charge',
      status: 'requires_payment',
      amount_cents: amount,
      currency: CURRENCY,
      processor: processor.name,
      processor_checkout_id: checkout.id,
      checkout_url: checkout.url,
      expires_at: expiresAt,
    },
    checkoutUrl: checkout.url,
    expiresAt,
    businessName: terms.name,
    timezone: terms.timezone,
  };
}

function paymentLinkEmail(booking: BookingView, prepared: PreparedCheckout) {
  const deadline = instantToWall(prepared.expiresAt.getTime(), prepared.timezone);
  const guest = booking.guest?.first_name ?? booking.customer.first_name;
  return {
    subject: `Pay the deposit for your booking at ${venueInSubject(prepared.businessName)}`,
    text: [
      `Hello ${guest},`,
      '',
      `your booking at ${prepared.businessName} for ${booking.capacity} on ${booking.booking_date} at ${booking.start_time} is reserved and waits for its deposit of ${euros(prepared.row.amount_cents)}.`,
      `Pay it here before ${deadline.date} ${deadline.time} (${prepared.timezone}):`,
      '',
      prepared.checkoutUrl,
      '',
      'Unpaid by then, the booking is cancelled.',
      `Confirmation code: ${booking.confirmation_code}`,
    ].join('\n'),
  };
}

/** A staff booking taken with a deposit: the guest's email names where its payment link goes. */
type StaffDepositRequest = BookingRequest & { customer: { email: string } };

/**
 * A staff booking's deposit: its payment link, made before the booking's transaction, is emailed
 * in that transaction, so the guest is told only of a booking that exists; the booking waits for
 * it, `pending`. A link whose booking failed is never sent and lapses unused.
 */
export const staffBookingDeposits = (
  deps: DepositDeps,
): BookingDeposits<PreparedCheckout, { checkout_url: string; expires_at: string }, StaffDepositRequest> => ({
  prepare: (caller, request, now) =>
    prepareStaffDeposit(deps, caller, { partySize: request.partySize, email: request.customer.email }, now),
  commit: (_prepared, commit) => commit(),
  record: async (executor, booking, prepared, request) => {
    await enqueueEmail(executor, {
      businessId: booking.business_id,
      to: request.customer.email,
      ...paymentLinkEmail(booking, prepared),
    });
    return { checkout_url: prepared.checkoutUrl, expires_at: prepared.expiresAt.toISOString() };
  },
});
