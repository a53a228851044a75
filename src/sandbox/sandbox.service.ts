import { randomBytes } from 'node:crypto';
import { recordAudit } from '../audit/audit.service.ts';
import type { AvailabilityService } from '../availability/availability.service.ts';
import { lockBooking, updateBooking } from '../bookings/bookings.queries.ts';
import { createBooking, findBooking } from '../bookings/bookings.service.ts';
import type { BookingView } from '../bookings/bookings.view.ts';
import { assertTransition } from '../bookings/status.rules.ts';
import { type CustomerInput, normalizePhone, sentGuest } from '../customers/customers.service.ts';
import { issueDefaultPublishableKey } from '../developers/api-keys.service.ts';
import { instantToWall, isoWithOffset, wallTimeToInstant } from '../engine/index.ts';
import type { BookingStatus } from '../engine/status.ts';
import type { PasswordHasher } from '../platform/auth.ts';
import { type Db, type Executor, type Tx, withTx } from '../platform/db.ts';
import { invalidField, notFound } from '../platform/errors.ts';
import {
  deleteSandboxBookingsBefore,
  findSandboxBusiness,
  insertSandbox,
  listSandboxResources,
  lockSandboxSeed,
} from './sandbox.queries.ts';

/** The sandbox's bookings are deleted this long after they were made. */
export const SANDBOX_BOOKING_DAYS = 7;
const DAY_MS = 86_400_000;

const OPEN_DAY = { is_open: true, open_time: '11:00', close_time: '23:00', last_booking_time: null };

/** What every visitor of the sandbox books at: a small bistro in Berlin, open 11:00-23:00 every day. */
const SANDBOX = {
  business: { name: 'Slotwise Sandbox Bistro', business_type: 'restaurant' },
  settings: {
    timezone: 'Europe/Berlin',
    default_slot_interval_minutes: 30,
    default_slot_duration_minutes: 90,
    booking_window_days: 60,
    max_capacity: 8,
  },
  hours: [0, 1, 2, 3, 4, 5, 6].map((day) => ({ day_of_week: day, ...OPEN_DAY })),
  resources: [
    { name: 'Table 1', section: 'Window', capacity_min: 1, capacity_max: 2 },
    { name: 'Table 2', section: 'Window', capacity_min: 1, capacity_max: 2 },
    { name: 'Table 3', section: 'Main room', capacity_min: 2, capacity_max: 4 },
    { name: 'Table 4', section: 'Main room', capacity_min: 2, capacity_max: 4 },
    { name: 'Table 5', section: 'Main room', capacity_min: 3, capacity_max: 6 },
    { name: 'Table 6', section: 'Terrace', capacity_min: 4, capacity_max: 8 },
  ],
};

export interface SandboxBusiness {
  id: string;
  timezone: string;
  default_slot_duration_minutes: number;
}

/**
 * The shared demo business, seeded when first needed (at start, and again should it be gone).
 * Its owner is an account nobody can log in to: its password is random and never kept.
 */
export async function ensureSandbox(db: Db, passwords: PasswordHasher): Promise<SandboxBusiness> {
  const found = await findSandboxBusiness(db);
  if (found) return found;
  const passwordHash = await passwords.hash(randomBytes(32).toString('hex'));
  return withTx(db, async (tx) => {
    await lockSandboxSeed(tx);
    const seeded = await findSandboxBusiness(tx);
    if (seeded) return seeded;
    const businessId = await insertSandbox(tx, {
      ...SANDBOX,
      developer: {
        email: `sandbox-${randomBytes(8).toString('hex')}@slotwise.invalid`,
        password_hash: passwordHash,
        first_name: 'Slotwise',
        last_name: 'Sandbox',
      },
    });
    await issueDefaultPublishableKey(tx, businessId, 'test');
    return (await findSandboxBusiness(tx))!;
  });
}

/** Anyone using the sandbox: no credential, so never trusted to change a returning customer. */
const visitor = (businessId: string) => ({
  businessId,
  actor: 'sandbox',
  kind: 'api_key' as const,
  scopes: new Set<never>(),
  // The sandbox business has no quota to count against.
  sandbox: true as const,
});

export const sandboxResources = (executor: Executor, sandbox: SandboxBusiness) =>
  listSandboxResources(executor, sandbox.id);

/** The day's slots, each as a start and end with the business's offset. */
export async function sandboxAvailability(
  availability: AvailabilityService,
  sandbox: SandboxBusiness,
  date: string,
  capacity: number,
) {
  const day = await availability.day({
    businessId: sandbox.id,
    date,
    partySize: capacity,
    perResource: false,
    channel: 'online',
  });
  const lengthMs = sandbox.default_slot_duration_minutes * 60_000;
  return {
    date,
    capacity,
    timezone: sandbox.timezone,
    slots: day.slots.flatMap((slot) => {
      // The sandbox opens and closes on the same day, so a slot's time is on the asked date.
      const start = wallTimeToInstant(date, slot.time, sandbox.timezone);
      if (start === null || !('remaining_resources' in slot)) return [];
      return [
        {
          start_time: isoWithOffset(start, sandbox.timezone),
          end_time: isoWithOffset(start + lengthMs, sandbox.timezone),
          available: slot.available,
          remaining_resources: slot.remaining_resources,
        },
      ];
    }),
    reason: day.reason,
  };
}

/**
 * A booking as the sandbox shows it: times as timestamps with the business's offset. Its visitors
 * are never trusted with customers, so its `customer` is the guest: as `sent` in the answer to the
 * booking, else as given with it (the phone as matched: digits and a leading `+`), never the
 * record that the phone matched.
 */
function toSandboxBooking(booking: BookingView, timezone: string, sent?: CustomerInput) {
  return {
    id: booking.id,
    status: booking.status,
    confirmation_code: booking.confirmation_code,
    start_time: isoWithOffset(Date.parse(booking.starts_at), timezone),
    end_time: isoWithOffset(Date.parse(booking.ends_at), timezone),
    capacity: booking.capacity,
    resource: { id: booking.resource.id, name: booking.resource.name },
    customer: sent
      ? sentGuest(sent)
      : {
          first_name: booking.guest?.first_name ?? '',
          last_name: booking.guest?.last_name ?? '',
          email: booking.guest?.email ?? null,
          phone: normalizePhone(booking.customer.phone),
        },
    notes: booking.customer_notes,
    created_at: booking.created_at,
  };
}

export interface SandboxBookingInput {
  start_time: string;
  capacity: number;
  customer: CustomerInput;
  notes?: string | null;
}

/** Books the sandbox with every rule of a public booking; the start is any timestamp with an offset. */
export async function createSandboxBooking(
  executor: Executor,
  availability: AvailabilityService,
  sandbox: SandboxBusiness,
  input: SandboxBookingInput,
  now: number,
) {
  const start = Date.parse(input.start_time);
  if (start % 60_000 !== 0) throw invalidField('start_time', 'must be on a whole minute');
  const wall = instantToWall(start, sandbox.timezone);
  const { booking } = await createBooking(
    executor,
    availability,
    visitor(sandbox.id),
    {
      date: wall.date,
      time: wall.time,
      partySize: input.capacity,
      customer: input.customer,
      customerNotes: input.notes ?? null,
      source: 'sandbox',
    },
    now,
  );
  return toSandboxBooking(booking, sandbox.timezone, input.customer);
}

async function sandboxBookingView(executor: Executor, sandbox: SandboxBusiness, bookingId: string) {
  const booking = await findBooking(executor, sandbox.id, bookingId);
  if (booking.source !== 'sandbox') throw notFound('booking');
  return booking;
}

export async function getSandboxBooking(executor: Executor, sandbox: SandboxBusiness, bookingId: string) {
  return toSandboxBooking(await sandboxBookingView(executor, sandbox, bookingId), sandbox.timezone);
}

/** Cancels a sandbox booking; cancelling it again answers it as it is. */
export async function cancelSandboxBooking(tx: Tx, sandbox: SandboxBusiness, bookingId: string) {
  // Locked first, so two cancellations at once make one change and one audit row.
  await lockBooking(tx, sandbox.id, bookingId);
  const booking = await sandboxBookingView(tx, sandbox, bookingId);
  if (booking.status !== 'cancelled') {
    assertTransition(booking.status as BookingStatus, 'cancelled');
    await updateBooking(tx, sandbox.id, booking.id, { status: 'cancelled' });
    await recordAudit(tx, visitor(sandbox.id), {
      action: 'booking.status_changed',
      entityType: 'booking',
      entityId: booking.id,
      before: { status: booking.status },
      after: { status: 'cancelled' },
    });
  }
  return getSandboxBooking(tx, sandbox, bookingId);
}

/** The job that keeps the sandbox small: bookings made more than 7 days ago are deleted. */
export async function purgeSandbox(db: Db, now: number): Promise<number> {
  const sandbox = await findSandboxBusiness(db);
  if (!sandbox) return 0;
  return withTx(db, (tx) =>
    deleteSandboxBookingsBefore(tx, sandbox.id, new Date(now - SANDBOX_BOOKING_DAYS * DAY_MS)),
  );
}
