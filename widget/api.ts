/**
 * Every call the widget makes to the API, in one place, through the typed SDK (`@slotwise/sdk`).
 * Each carries the publishable key: the API checks the page's origin against the key's allowed
 * origins.
 */
import { createSlotwiseClient } from '@slotwise/sdk';
import type { TimeFormat } from '../src/engine/clock.ts';

export interface Business {
  id: string;
  name: string;
  slug: string;
  timezone: string;
  /** How times read; null: the language's clock. */
  time_format?: TimeFormat | null;
  min_capacity?: number;
  max_capacity?: number;
  /** The largest party that may book online; a larger one (up to max_capacity) is asked to call `phone`. */
  max_online_party_size?: number;
  phone?: string | null;
  /** A sandbox business: the widget says it is in test mode. */
  is_sandbox?: boolean;
  description?: string | null;
  address?: string | null;
  public_email?: string | null;
  website?: string | null;
  logo_url?: string | null;
  booking_policy?: string | null;
  deposit_type?: string;
  default_deposit_amount_cents?: number;
  /** How long a booking waiting for its deposit keeps its table. */
  payment_hold_minutes?: number;
  guest_emails_enabled?: boolean;
}

export interface Day {
  date: string;
  available: boolean;
  reason: 'closed' | 'blackout' | 'fully_booked' | 'outside_booking_window' | 'outside_period' | null;
  /** On a closed day, what the venue tells guests of it. */
  note: string | null;
}

export interface Slot {
  time: string;
  available: boolean;
  /** The venue's service period (lunch, dinner) holding the start; null on a day without periods. */
  period?: { id: string; name: string } | null;
  /** A class's places left at the time. */
  seats_left?: number;
}

export interface Booking {
  /** In the answer to a new booking; a guest's view of it has none. */
  id?: string;
  confirmation_code: string;
  status: string;
  booking_date: string;
  start_time: string;
  capacity: number;
  starts_at: string;
  ends_at: string;
  deposit: { amount_cents: number; status: string } | null;
  payment_client_secret?: string;
  /** In a guest's view of it: whether a cancellation or a change now would be accepted. */
  can_cancel?: boolean;
  can_change?: boolean;
}

/** What a guest may change of their booking. */
export interface GuestChange {
  booking_date: string;
  start_time: string;
  capacity: number;
}

export interface BookingRequest {
  business_id: string;
  booking_date: string;
  start_time: string;
  capacity: number;
  service_id?: string;
  first_name: string;
  last_name: string;
  email: string;
  phone: string;
  customer_notes?: string | null;
  marketing_opt_in?: boolean;
}

export interface WaitlistRequest {
  first_name: string;
  last_name: string;
  phone: string;
  email?: string;
  preferred_date: string;
  capacity: number;
  service_id?: string;
}

export type GuestContact = { email: string } | { phone: string };

/** An answer of the API's error format: `code` as in the API's table of errors. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export interface Api {
  business(idOrSlug: string): Promise<Business>;
  days(businessId: string, query: Record<string, string | number | undefined>): Promise<{ days: Day[] }>;
  slots(businessId: string, query: Record<string, string | number | undefined>): Promise<{ slots: Slot[] }>;
  book(body: BookingRequest): Promise<{ booking: Booking }>;
  joinWaitlist(businessId: string, body: WaitlistRequest): Promise<{ position: number }>;
  /** A booking as its guest sees it, found by its code and the email or phone given at booking. */
  guestBooking(code: string, contact: GuestContact): Promise<Booking>;
  cancelGuestBooking(code: string, contact: GuestContact): Promise<Booking>;
  changeGuestBooking(code: string, contact: GuestContact, change: GuestChange): Promise<Booking>;
}

type Answer<T> = { data?: T; error?: { error?: { code?: string; message?: string } }; response: Response };

/** The answer's data, or the API's error as an `ApiError`. */
async function unwrap<T>(call: Promise<unknown>): Promise<T> {
  const { data, error, response } = (await call) as Answer<T>;
  if (error !== undefined || data === undefined) {
    const refusal = error?.error ?? {};
    throw new ApiError(response.status, refusal.code ?? 'unknown', refusal.message ?? response.statusText);
  }
  return data;
}

/** Every call through the typed SDK; the widget's own types name the fields it reads. */
export function createApi(baseUrl: string, key: string): Api {
  const client = createSlotwiseClient({ baseUrl: baseUrl.replace(/\/$/, ''), apiKey: key });
  // The SDK checks paths and bodies; a query is what the widget's attributes and steps hold.
  const query = (values: Record<string, string | number | undefined>) => values as never;
  return {
    business: (idOrSlug) =>
      unwrap(client.GET('/v1/public/business/{slug}', { params: { path: { slug: idOrSlug } } })),
    days: (businessId, values) =>
      unwrap(
        client.GET('/v1/availability/{business_id}/days', {
          params: { path: { business_id: businessId }, query: query(values) },
        }),
      ),
    slots: (businessId, values) =>
      unwrap(
        client.GET('/v1/availability/{business_id}', {
          params: { path: { business_id: businessId }, query: query(values) },
        }),
      ),
    book: (body) => unwrap(client.POST('/v1/bookings', { body })),
    joinWaitlist: (businessId, { first_name, last_name, phone, email, ...entry }) =>
      unwrap(
        client.POST('/v1/waitlist/{business_id}', {
          params: { path: { business_id: businessId } },
          body: { ...entry, customer: { first_name, last_name, phone, email } },
        }),
      ),
    guestBooking: (code, contact) =>
      unwrap(
        client.GET('/v1/public/bookings/{confirmation_code}', {
          params: { path: { confirmation_code: code }, query: contact },
        }),
      ),
    cancelGuestBooking: (code, contact) =>
      unwrap(
        client.POST('/v1/public/bookings/{confirmation_code}/cancel', {
          params: { path: { confirmation_code: code } },
          body: contact,
        }),
      ),
    changeGuestBooking: (code, contact, change) =>
      unwrap(
        client.POST('/v1/public/bookings/{confirmation_code}/change', {
          params: { path: { confirmation_code: code } },
          body: { ...contact, ...change },
        }),
      ),
  };
}
