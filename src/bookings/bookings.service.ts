import { randomInt } from 'node:crypto';
import { sql } from 'kysely';
import { recordAudit } from '../audit/audit.ts';
import { assertPartySize, loadDay, startFailure, toDayRules } from '../availability/availability.service.ts';
import { checkStart, instantToWall } from '../availability/engine/index.ts';
import { type CustomerInput, upsertCustomer } from '../customers/customers.service.ts';
import type { Principal } from '../platform/auth.ts';
import type { Executor, Tx } from '../platform/db.ts';
import { AppError, invalidField, notFound } from '../platform/errors.ts';
import type { BookingStatus } from '../schema.ts';
import { type BookingView, selectBookingRows, toBookingView } from './bookings.view.ts';
import { ACTIVE_STATUSES, assertTransition, isTerminal } from './status.ts';

type Actor = Pick<Principal, 'actor'> & { businessId: string };

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
export function confirmationCode(): string {
  let code = '';
  for (let i = 0; i < 8; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

/** `[start,end)` as a tstzrange literal. */
export const rangeLiteral = (start: number, end: number) =>
  `[${new Date(start).toISOString()},${new Date(end).toISOString()})`;

const slotTaken = () => new AppError(409, 'slot_unavailable', 'no resource is free for this slot any more');

export async function findBooking(
  executor: Executor,
  businessId: string,
  bookingId: string,
): Promise<BookingView> {
  const row = await selectBookingRows(executor)
    .where('b.id', '=', bookingId)
    .where('b.business_id', '=', businessId)
    .executeTakeFirst();
  if (!row) throw notFound('booking');
  return toBookingView(row);
}

interface BookingPlacement {
  businessId: string;
  customerId: string;
  serviceId: string | null;
  date: string;
  startTime: string;
  endTime: string;
  durationMinutes: number;
  start: number;
  end: number;
  heldStart: number;
  heldEnd: number;
  status: BookingStatus;
  capacity: number;
  source: 'online' | 'staff';
  customerNotes: string | null;
}

/**
 * Inserts the booking on the first candidate resource the database accepts. The exclusion
 * constraint is the judge under concurrency: a 23P01 means another request took that resource
 * first, so the next candidate is tried inside a savepoint; a code collision draws a new code.
 */
export async function insertOnFirstFree(
  tx: Tx,
  placement: BookingPlacement,
  candidates: string[],
): Promise<string> {
  for (const resourceId of candidates) {
    if (!(await lockUsableResource(tx, placement.businessId, resourceId))) continue;
    for (let codeAttempt = 0; codeAttempt < 5; codeAttempt++) {
      await sql`SAVEPOINT place_booking`.execute(tx);
      try {
        const row = await tx
          .insertInto('bookings')
          .values({
            business_id: placement.businessId,
            customer_id: placement.customerId,
            resource_id: resourceId,
            service_id: placement.serviceId,
            booking_date: placement.date,
            start_time: placement.startTime,
            end_time: placement.endTime,
            duration_minutes: placement.durationMinutes,
            starts_at: new Date(placement.start),
            ends_at: new Date(placement.end),
            during: rangeLiteral(placement.heldStart, placement.heldEnd),
            status: placement.status,
            confirmation_code: confirmationCode(),
            capacity: placement.capacity,
            source: placement.source,
            customer_notes: placement.customerNotes,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        await sql`RELEASE SAVEPOINT place_booking`.execute(tx);
        return row.id;
      } catch (error) {
        await sql`ROLLBACK TO SAVEPOINT place_booking`.execute(tx);
        const code = (error as { code?: string }).code;
        if (code === '23P01') break;
        if (code === '23505') continue;
        throw error;
      }
    }
  }
  throw slotTaken();
}

export interface NewBooking {
  date: string;
  time: string;
  partySize: number;
  serviceId?: string | null;
  resourceId?: string | null;
  customer: CustomerInput;
  customerNotes?: string | null;
  source: 'online' | 'staff';
}

/**
 * Creates a booking with every rule re-checked inside the caller's transaction. Online bookings
 * sit on the slot grid and respect notice and window; staff bookings take any minute inside hours.
 */
export async function createBooking(
  tx: Tx,
  actor: Actor,
  input: NewBooking,
  now: number,
): Promise<BookingView> {
  const ctx = await loadDay(
    tx,
    actor.businessId,
    {
      date: input.date,
      partySize: input.partySize,
      serviceId: input.serviceId,
      resourceId: input.resourceId,
    },
    now,
  );
  assertPartySize(ctx, input.partySize);
  const rules = toDayRules(
    ctx,
    { date: input.date, partySize: input.partySize, resourceId: input.resourceId },
    now,
  );
  const staff = input.source === 'staff';
  const check = checkStart(rules, input.time, { onGrid: !staff, ignoreNoticeAndWindow: staff });
  if (!check.ok) throw startFailure(check);
  const customer = await upsertCustomer(tx, actor.businessId, input.customer);
  const tz = ctx.business.timezone;
  const bookingId = await insertOnFirstFree(
    tx,
    {
      businessId: actor.businessId,
      customerId: customer.id,
      serviceId: ctx.service?.id ?? null,
      date: input.date,
      startTime: instantToWall(check.start, tz).time,
      endTime: instantToWall(check.end, tz).time,
      durationMinutes: rules.durationMinutes,
      start: check.start,
      end: check.end,
      heldStart: check.heldStart,
      heldEnd: check.heldEnd,
      status: staff || ctx.business.auto_confirm_bookings ? 'confirmed' : 'pending',
      capacity: input.partySize,
      source: input.source,
      customerNotes: input.customerNotes ?? null,
    },
    check.freeResourceIds,
  );
  const booking = await findBooking(tx, actor.businessId, bookingId);
  await recordAudit(tx, actor, {
    action: staff ? 'booking.created_by_staff' : 'booking.created',
    entityType: 'booking',
    entityId: booking.id,
    after: booking,
  });
  return booking;
}

export interface BookingChange {
  status?: BookingStatus;
  resource_id?: string;
  capacity?: number;
  booking_date?: string;
  start_time?: string;
}

async function lockBooking(tx: Tx, businessId: string, bookingId: string) {
  const row = await tx
    .selectFrom('bookings')
    .selectAll()
    .where('id', '=', bookingId)
    .where('business_id', '=', businessId)
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw notFound('booking');
  return row;
}

/**
 * The resource if it is active and not deleted, share-locked until the transaction ends. The lock
 * waits out a concurrent delete or deactivation (which lock the row for update), so no booking is
 * placed on a resource that is gone by the time both commit.
 */
function lockUsableResource(tx: Tx, businessId: string, resourceId: string) {
  return tx
    .selectFrom('resources')
    .select(['id', 'capacity_min', 'capacity_max'])
    .where('id', '=', resourceId)
    .where('business_id', '=', businessId)
    .where('deleted_at', 'is', null)
    .where('is_active', '=', true)
    .forShare()
    .executeTakeFirst();
}

async function loadResource(tx: Tx, businessId: string, resourceId: string) {
  const resource = await lockUsableResource(tx, businessId, resourceId);
  if (!resource) throw invalidField('resource_id', 'is not an active resource of this business');
  return resource;
}

/** A booking made for a service stays on resources that perform it. */
async function assertPerformsService(tx: Tx, serviceId: string | null, resourceId: string) {
  if (!serviceId) return;
  const service = await tx
    .selectFrom('services')
    .select('resource_ids')
    .where('id', '=', serviceId)
    .executeTakeFirst();
  if (service && service.resource_ids.length > 0 && !service.resource_ids.includes(resourceId)) {
    throw invalidField('resource_id', "does not perform this booking's service");
  }
}

function assertFits(
  resource: { capacity_min: number; capacity_max: number },
  capacity: number,
  field: string,
) {
  if (capacity < resource.capacity_min || capacity > resource.capacity_max) {
    throw invalidField(
      field,
      `the resource takes parties of ${resource.capacity_min} to ${resource.capacity_max}`,
    );
  }
}

/** Whether another active booking or an external block holds the resource during `[start, end)`. */
async function resourceIsBusy(tx: Tx, resourceId: string, heldRange: string, excludeBookingId: string) {
  const clash = await tx
    .selectFrom('bookings')
    .select('id')
    .where('resource_id', '=', resourceId)
    .where('id', '<>', excludeBookingId)
    .where('status', 'in', ACTIVE_STATUSES)
    .where(sql<boolean>`during && ${heldRange}::tstzrange`)
    .union(
      tx
        .selectFrom('resource_blocks')
        .select('id')
        .where('resource_id', '=', resourceId)
        .where(sql<boolean>`during && ${heldRange}::tstzrange`),
    )
    .limit(1)
    .executeTakeFirst();
  return clash !== undefined;
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
 * Applies a staff PATCH: reschedule, resource move, party size and status, each re-validated and
 * audited in the caller's transaction. Terminal bookings only keep their status.
 */
export async function changeBooking(
  tx: Tx,
  actor: Actor,
  bookingId: string,
  change: BookingChange,
  now: number,
): Promise<BookingView> {
  const current = await lockBooking(tx, actor.businessId, bookingId);
  const before = await findBooking(tx, actor.businessId, bookingId);
  const reschedule = change.booking_date !== undefined || change.start_time !== undefined;
  const touchesPlacement = reschedule || change.resource_id !== undefined || change.capacity !== undefined;
  if (touchesPlacement && isTerminal(current.status)) {
    throw new AppError(409, 'conflict', `a ${current.status} booking cannot be changed`);
  }
  const capacity = change.capacity ?? current.capacity;
  let placed: { resourceId: string; capacity: number };

  if (reschedule) {
    const date = change.booking_date ?? current.booking_date;
    const time = change.start_time ?? current.start_time.slice(0, 5);
    const ctx = await loadDay(
      tx,
      actor.businessId,
      {
        date,
        partySize: capacity,
        serviceId: current.service_id,
        resourceId: change.resource_id,
        excludeBookingId: current.id,
      },
      now,
    );
    assertPartySize(ctx, capacity);
    const rules = toDayRules(ctx, { date, partySize: capacity, resourceId: change.resource_id }, now);
    const staff = current.source === 'staff';
    const check = checkStart(rules, time, { onGrid: !staff, ignoreNoticeAndWindow: staff });
    if (!check.ok) throw startFailure(check);
    const resourceId =
      check.freeResourceIds.includes(current.resource_id) && !change.resource_id
        ? current.resource_id
        : check.freeResourceIds[0]!;
    if (!(await lockUsableResource(tx, actor.businessId, resourceId))) throw slotTaken();
    const tz = ctx.business.timezone;
    await tx
      .updateTable('bookings')
      .set({
        booking_date: date,
        start_time: instantToWall(check.start, tz).time,
        end_time: instantToWall(check.end, tz).time,
        starts_at: new Date(check.start),
        ends_at: new Date(check.end),
        during: rangeLiteral(check.heldStart, check.heldEnd),
        resource_id: resourceId,
        capacity,
        updated_at: new Date(),
      })
      .where('id', '=', current.id)
      .execute();
    await recordAudit(tx, actor, {
      action: 'booking.rescheduled',
      entityType: 'booking',
      entityId: current.id,
      before: {
        booking_date: before.booking_date,
        start_time: before.start_time,
        resource_id: before.resource_id,
        capacity: before.capacity,
      },
      after: {
        booking_date: date,
        start_time: instantToWall(check.start, tz).time,
        resource_id: resourceId,
        capacity,
      },
    });
    placed = { resourceId, capacity };
  } else {
    const resourceId = change.resource_id ?? current.resource_id;
    const moves = resourceId !== current.resource_id;
    const resizes = capacity !== current.capacity;
    if (moves || resizes) {
      const resource = await loadResource(tx, actor.businessId, resourceId);
      if (moves) await assertPerformsService(tx, current.service_id, resource.id);
      assertFits(resource, capacity, resizes ? 'capacity' : 'resource_id');
      if (moves && (await resourceIsBusy(tx, resource.id, current.during, current.id))) throw slotTaken();
      await tx
        .updateTable('bookings')
        .set({ resource_id: resourceId, capacity, updated_at: new Date() })
        .where('id', '=', current.id)
        .execute();
    }
    placed = { resourceId, capacity };
  }
  if (placed.resourceId !== current.resource_id) {
    await auditBooking(
      tx,
      actor,
      current.id,
      'booking.resource_moved',
      'resource_id',
      current.resource_id,
      placed.resourceId,
    );
  }
  if (placed.capacity !== current.capacity) {
    await auditBooking(
      tx,
      actor,
      current.id,
      'booking.capacity_changed',
      'capacity',
      current.capacity,
      placed.capacity,
    );
  }

  // A closed booking stays closed: even "cancelled" again is a refused move, not a no-op.
  if (change.status !== undefined && (change.status !== current.status || isTerminal(current.status))) {
    assertTransition(current.status, change.status);
    await tx
      .updateTable('bookings')
      .set({ status: change.status, updated_at: new Date() })
      .where('id', '=', current.id)
      .execute();
    await auditBooking(
      tx,
      actor,
      current.id,
      'booking.status_changed',
      'status',
      current.status,
      change.status,
    );
  }
  return findBooking(tx, actor.businessId, bookingId);
}

export async function saveStaffNotes(
  tx: Tx,
  actor: Actor,
  bookingId: string,
  notes: string,
): Promise<BookingView> {
  const current = await lockBooking(tx, actor.businessId, bookingId);
  await tx
    .updateTable('bookings')
    .set({ staff_notes: notes, updated_at: new Date() })
    .where('id', '=', current.id)
    .execute();
  await auditBooking(tx, actor, current.id, 'booking.notes_saved', 'staff_notes', current.staff_notes, notes);
  return findBooking(tx, actor.businessId, bookingId);
}

/** Active resources that could take the booking instead of its current one, in display order. */
export async function availableResources(executor: Executor, businessId: string, bookingId: string) {
  const booking = await executor
    .selectFrom('bookings')
    .select(['id', 'resource_id', 'capacity', 'during'])
    .where('id', '=', bookingId)
    .where('business_id', '=', businessId)
    .executeTakeFirst();
  if (!booking) throw notFound('booking');
  return executor
    .selectFrom('resources as r')
    .select([
      'r.id',
      'r.name',
      'r.resource_type',
      'r.capacity_min',
      'r.capacity_max',
      'r.section',
      'r.display_order',
    ])
    .where('r.business_id', '=', businessId)
    .where('r.deleted_at', 'is', null)
    .where('r.is_active', '=', true)
    .where('r.id', '<>', booking.resource_id)
    .where('r.capacity_min', '<=', booking.capacity)
    .where('r.capacity_max', '>=', booking.capacity)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('bookings as o')
            .select('o.id')
            .whereRef('o.resource_id', '=', 'r.id')
            .where('o.id', '<>', booking.id)
            .where('o.status', 'in', ACTIVE_STATUSES)
            .where(sql<boolean>`o.during && ${booking.during}::tstzrange`),
        ),
      ),
    )
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('resource_blocks as k')
            .select('k.id')
            .whereRef('k.resource_id', '=', 'r.id')
            .where(sql<boolean>`k.during && ${booking.during}::tstzrange`),
        ),
      ),
    )
    .orderBy('r.display_order')
    .orderBy('r.id')
    .execute();
}
