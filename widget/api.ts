/**
 * Every call the widget makes to the API, in one place, so the transport can change without
 * touching the element. Each carries the publishable key: the API checks the page's origin
 * against the key's allowed origins.
 */

export interface Business {
  id: string;
  name: string;
  slug: string;
  timezone: string;
  min_capacity?: number;
  max_capacity?: number;
}

export interface Day {
  date: string;
  available: boolean;
  reason: 'closed' | 'blackout' | 'fully_booked' | 'outside_booking_window' | null;
}

export interface Slot {
  time: string;
  available: boolean;
}

export interface Booking {
  confirmation_code: string;
  status: string;
  booking_date: string;
  start_time: string;
  capacity: number;
  starts_at: string;
  deposit: { amount_cents: number; status: string } | null;
  payment_client_secret?: string;
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
}

const queryOf = (query: Record<string, string | number | undefined>) => {
  const entries = Object.entries(query).filter(([, value]) => value !== undefined) as [string, string][];
  return entries.length ? `?${new URLSearchParams(entries)}` : '';
};

export function createApi(baseUrl: string, key: string): Api {
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(new URL(path, baseUrl), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = await response.json().catch(() => null);
    if (!response.ok) {
      const error = answer?.error ?? {};
      throw new ApiError(response.status, error.code ?? 'unknown', error.message ?? response.statusText);
    }
    return answer as T;
  };
  const id = encodeURIComponent;
  return {
    business: (idOrSlug) => call('GET', `/v1/public/business/${id(idOrSlug)}`),
    days: (businessId, query) => call('GET', `/v1/availability/${id(businessId)}/days${queryOf(query)}`),
    slots: (businessId, query) => call('GET', `/v1/availability/${id(businessId)}${queryOf(query)}`),
    book: (body) => call('POST', '/v1/bookings', body),
    joinWaitlist: (businessId, body) => call('POST', `/v1/waitlist/${id(businessId)}`, body),
    guestBooking: (code, contact) => call('GET', `/v1/public/bookings/${id(code)}${queryOf(contact)}`),
    cancelGuestBooking: (code, contact) => call('POST', `/v1/public/bookings/${id(code)}/cancel`, contact),
  };
}
