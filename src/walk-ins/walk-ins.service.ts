import type { AvailabilityService } from '../availability/availability.service.ts';
import { toDayRules } from '../availability/day-rules.service.ts';
import { queueWaits, todayIn } from '../engine/index.ts';
import { insertWrittenMessage } from '../messages/outbox.queries.ts';
import type { Db, Executor, Tx } from '../platform/db.ts';
import { conflict, notFound } from '../platform/errors.ts';
import { tableReadyMessage } from './table-ready.view.ts';
import {
  countQueued,
  deleteWalkIn,
  findWalkIn,
  forgetQueuedBefore,
  insertWalkIn,
  listQueue,
  lockQueue,
  markNotified,
  type NewWalkInRow,
  venueOfQueue,
  type WalkInRow,
} from './walk-ins.queries.ts';
import { toWalkInView } from './walk-ins.view.ts';

/** The most parties one venue's queue holds: a host stand's night, and a bound on what one listing computes. */
export const QUEUE_MAX = 100;

/** How long an entry waits before it is taken for gone: the queue is tonight's. */
const QUEUE_HOURS = 12;

const queueSince = (now: number) => new Date(now - QUEUE_HOURS * 3_600_000);

export type NewWalkIn = Omit<NewWalkInRow, 'business_id' | 'created_at'>;

/**
 * The venue's queue in the order it joined, each party with the minutes the engine quotes until a
 * table seats it: today's bookings and blocks as they stand, the parties ahead seated first.
 */
export async function walkInQueue(
  executor: Executor,
  availability: AvailabilityService,
  businessId: string,
  now: number,
) {
  const rows = await listQueue(executor, businessId, queueSince(now));
  const waits = await quotedWaits(executor, availability, businessId, rows, now);
  return rows.map((row, index) => toWalkInView(row, index + 1, waits[index] ?? null));
}

async function quotedWaits(
  executor: Executor,
  availability: AvailabilityService,
  businessId: string,
  rows: readonly WalkInRow[],
  now: number,
): Promise<(number | null)[]> {
  if (rows.length === 0) return [];
  const venue = await venueOfQueue(executor, businessId);
  if (!venue) throw notFound('business');
  const query = { date: todayIn(venue.timezone, now), partySize: 1 };
  const day = await availability.loadedDay(businessId, query, now, executor);
  return queueWaits(
    toDayRules(day, query, now),
    rows.map((row) => row.capacity),
  );
}

/** Adds a party to the end of the queue (409 when it holds `QUEUE_MAX`) and answers it as queued. */
export async function joinQueue(
  tx: Tx,
  availability: AvailabilityService,
  businessId: string,
  entry: NewWalkIn,
  now: number,
) {
  await lockQueue(tx, businessId);
  await forgetQueuedBefore(tx, businessId, queueSince(now));
  if ((await countQueued(tx, businessId)) >= QUEUE_MAX) {
    throw conflict(`the queue holds ${QUEUE_MAX} parties already; seat or remove some first`);
  }
  const added = await insertWalkIn(tx, { ...entry, business_id: businessId, created_at: new Date(now) });
  const queue = await walkInQueue(tx, availability, businessId, now);
  return queue.find((queued) => queued.id === added.id)!;
}

/**
 * Tells the party its table is ready: by SMS when it gave a phone and the venue sends SMS, else by
 * email when it gave an address and the venue sends guest email (409 when neither can reach it),
 * through the outbox and its limits. Answers the entry as queued, `notified_at` set.
 */
export async function notifyWalkIn(
  tx: Tx,
  availability: AvailabilityService,
  businessId: string,
  id: string,
  now: number,
) {
  const entry = await findWalkIn(tx, businessId, id);
  if (!entry) throw notFound('walk-in');
  const venue = (await venueOfQueue(tx, businessId))!;
  const channel =
    entry.phone && venue.sms_enabled ? 'sms' : entry.email && venue.guest_emails_enabled ? 'email' : null;
  if (!channel) {
    throw conflict(
      'the party can be told neither by SMS (a phone, and SMS on for the venue) nor by email (an address, and guest emails on)',
    );
  }
  const message = tableReadyMessage(venue.notification_language, venue.name);
  await insertWrittenMessage(tx, {
    businessId,
    type: 'table_ready',
    channel,
    to: channel === 'sms' ? entry.phone! : entry.email!,
    ...message,
  });
  await markNotified(tx, businessId, id, new Date(now));
  const queue = await walkInQueue(tx, availability, businessId, now);
  return queue.find((queued) => queued.id === id)!;
}

/** Takes the entry off the queue, answering what it was; 404 when it is not there (seated or removed already). */
export async function leaveQueue(executor: Executor, businessId: string, id: string): Promise<WalkInRow> {
  const removed = await deleteWalkIn(executor, businessId, id);
  if (!removed) throw notFound('walk-in');
  return removed;
}

/** The entry as it is queued, before it is seated. */
export async function queuedWalkIn(db: Db, businessId: string, id: string): Promise<WalkInRow> {
  const entry = await findWalkIn(db, businessId, id);
  if (!entry) throw notFound('walk-in');
  return entry;
}
