import type { AvailabilityService } from '../availability/availability.service.ts';
import { assertFeature } from '../billing/subscription.service.ts';
import { answerToCaller } from '../customers/customers.service.ts';
import type { Principal } from '../platform/auth.ts';
import type { Executor } from '../platform/db.ts';
import { AppError, notFound } from '../platform/errors.ts';
import { type BookingDeposit, booked, createBooking, type NewBooking } from './bookings.service.ts';
import { type BookingView, withPaymentSecret } from './bookings.view.ts';

type Caller = Principal & { businessId: string };

/** A new booking as its entry asks for it, with the business its body names, if it names one. */
export type BookingRequest = Omit<NewBooking, 'deposit'> & { businessId?: string };

/** What the guest's browser pays, or saves the card, with: answered with the booking. */
interface DepositPayment {
  type: 'charge' | 'authorization_hold';
  clientSecret: string;
}

/** A public booking's deposit, paid in the guest's browser. */
export interface PreparedBookingDeposit extends BookingDeposit {
  payment: DepositPayment;
}

/**
 * A deposit a new booking is taken with: prepared with the processor before the booking's
 * transaction (the processor is never called inside one), committed with the booking, and given
 * up by `commit` when the transaction fails. Deposits sit above bookings and implement it; app.ts
 * hands in the public one, deposits' staff route its own.
 */
export interface BookingDeposits<
  D extends BookingDeposit,
  A extends object = object,
  R extends BookingRequest = BookingRequest,
> {
  /** The deposit the booking needs; null when its business asks none. */
  prepare(caller: Caller, request: R, now: number): Promise<D | null>;
  commit<T>(prepared: D | null, commit: () => Promise<T>): Promise<T>;
  /** Written in the booking's transaction after it (the guest's payment link); the answer adds it. */
  record?(executor: Executor, booking: BookingView, prepared: D, request: R): Promise<A>;
}

/** The deposit a public or dynamic booking asks by its business's settings. */
export type PublicBookingDeposits = BookingDeposits<PreparedBookingDeposit>;

/** Where an entry's request runs the use case; `Sent` is what its commit gives back. */
export interface BookingCall<Sent> {
  caller: Caller;
  now: number;
  /** The request, on which the held dates of the booking are noted for the caches (`booked`). */
  request: { bookedDates: readonly string[] | null };
  /**
   * Commits the booking's work with its answer: `commitStatement`, or `commitReply` when the
   * deposit writes beside the booking and needs a transaction.
   */
  commit<T>(work: (executor: Executor) => Promise<T>): Promise<Sent>;
}

/**
 * A new booking, however it is asked for (public, dynamic, staff, staff with a deposit): the
 * business the body names is the caller's (404), dynamic mode is in the plan (402), the deposit is
 * prepared, then the booking is made and answered in one commit: its held dates noted for the
 * caches, the deposit's client secret added, and nothing of the customer for a caller not trusted
 * with it. A dynamic booking's 409 carries `detail`, as that surface's contract has it.
 */
export async function book<
  D extends BookingDeposit & { payment?: DepositPayment },
  A extends object,
  R extends BookingRequest,
  Sent,
>(
  availability: AvailabilityService,
  deposits: BookingDeposits<D, A, R> | null,
  input: R,
  call: BookingCall<Sent>,
): Promise<Sent> {
  const { caller, now } = call;
  if (input.businessId !== undefined && input.businessId !== caller.businessId) throw notFound('business');
  const dynamic = input.mode === 'dynamic';
  if (dynamic) assertFeature(caller, 'dynamicMode', now);
  const prepared = deposits ? await deposits.prepare(caller, input, now) : null;
  const made = (executor: Executor) =>
    createBooking(executor, availability, caller, { ...input, deposit: prepared ?? undefined }, now).catch(
      (error: unknown) => {
        if (dynamic && error instanceof AppError && error.code === 'slot_unavailable') {
          throw new AppError('slot_unavailable', error.message, { detail: true });
        }
        throw error;
      },
    );
  const run = () =>
    call.commit(async (executor) => {
      const held = await made(executor);
      const beside =
        prepared && deposits?.record ? await deposits.record(executor, held.booking, prepared, input) : {};
      return {
        booking: answerToCaller(
          caller,
          caller.businessId,
          withPaymentSecret(booked(call.request, held), prepared?.payment ?? null),
          input.customer,
        ),
        ...beside,
      };
    });
  return deposits ? deposits.commit(prepared, run) : run();
}
