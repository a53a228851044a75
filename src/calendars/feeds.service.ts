import { createHash, randomBytes } from 'node:crypto';
import icalGenerator, { ICalEventStatus } from 'ical-generator';
import { type AuditActor, recordAudit, removeAudited } from '../audit/audit.service.ts';
import { bookingUid } from '../engine/calendar-uid.ts';
import type { BookingStatus } from '../engine/status.ts';
import { sha256 } from '../platform/auth.ts';
import type { Executor, Tx } from '../platform/db.ts';
import { invalidField } from '../platform/errors.ts';
import type { PageRequest } from '../platform/pagination.ts';
import { unknownResourceIds } from '../resources/resources.queries.ts';
import {
  deleteFeedRow,
  type FeedBookingRow,
  feedBookings,
  feedByTokenHash,
  insertFeed,
  listFeedsOf,
} from './feeds.queries.ts';
import { toFeedView } from './feeds.view.ts';

const DAY_MS = 86_400_000;
/** A feed lists the bookings from this long ago... */
const FEED_PAST_MS = 30 * DAY_MS;
/** ...to this far ahead. */
const FEED_AHEAD_MS = 365 * DAY_MS;
/** A cancelled booking stays in the feed (as CANCELLED, so subscribed calendars drop it) this long. */
const CANCELLED_KEPT_MS = 30 * DAY_MS;

/** The feed's address: the token is 32 random bytes, base64url; only its SHA-256 is stored. */
const TOKEN_BYTES = 32;
const FEED_FILE = /^([A-Za-z0-9_-]{43})\.ics$/;

export const feedUrl = (publicBaseUrl: string, token: string) => `${publicBaseUrl}/calendar/${token}.ics`;

export async function createFeed(
  tx: Tx,
  actor: AuditActor,
  publicBaseUrl: string,
  input: { resource_id?: string | null; private_notes?: boolean },
) {
  const resourceId = input.resource_id ?? null;
  if (resourceId !== null && (await unknownResourceIds(tx, actor.businessId, [resourceId])).length > 0) {
    throw invalidField('resource_id', 'is not a resource of this business');
  }
  const token = randomBytes(TOKEN_BYTES).toString('base64url');
  const view = toFeedView(
    await insertFeed(tx, {
      business_id: actor.businessId,
      resource_id: resourceId,
      private_notes: input.private_notes ?? false,
      token_hash: sha256(token),
    }),
  );
  await recordAudit(tx, actor, {
    action: 'calendar_feed.created',
    entityType: 'calendar_feed',
    entityId: view.id,
    after: view,
  });
  return { ...view, url: feedUrl(publicBaseUrl, token) };
}

export const findFeeds = (executor: Executor, page: PageRequest) => listFeedsOf(executor, page, toFeedView);

export const revokeFeed = (tx: Tx, actor: AuditActor, feedId: string) =>
  removeAudited(tx, actor, {
    entityType: 'calendar_feed',
    take: () => deleteFeedRow(tx, actor.businessId, feedId),
    view: toFeedView,
    action: 'calendar_feed.revoked',
  });

/**
 * Calendars show a booking's state by STATUS: a pending one is tentative; a cancelled one, and a
 * no-show (the guest never came, so the table was in fact free), is cancelled.
 */
const STATUS_OF: Record<BookingStatus, ICalEventStatus> = {
  pending: ICalEventStatus.TENTATIVE,
  confirmed: ICalEventStatus.CONFIRMED,
  checked_in: ICalEventStatus.CONFIRMED,
  completed: ICalEventStatus.CONFIRMED,
  cancelled: ICalEventStatus.CANCELLED,
  no_show: ICalEventStatus.CANCELLED,
};

/** "party of N", in the business's notification language. */
const PARTY_OF: Record<string, (n: number) => string> = {
  en: (n) => `party of ${n}`,
  de: (n) => `${n} ${n === 1 ? 'Person' : 'Personen'}`,
  fr: (n) => `${n} ${n === 1 ? 'personne' : 'personnes'}`,
  nl: (n) => `${n} ${n === 1 ? 'persoon' : 'personen'}`,
  es: (n) => `${n} ${n === 1 ? 'persona' : 'personas'}`,
};

/**
 * SEQUENCE: the seconds from the booking's creation to its last change, so it rises with every
 * change (two changes within one second share a number) and fits iCalendar's 32-bit integer.
 */
export const sequenceOf = (booking: Pick<FeedBookingRow, 'created_at' | 'updated_at'>) =>
  Math.max(0, Math.floor((booking.updated_at.getTime() - booking.created_at.getTime()) / 1000));

/** The event's text: the code and the guest's notes; the staff's notes and allergies only in a private feed. */
function describe(booking: FeedBookingRow, privateNotes: boolean): string {
  const allergies = booking.allergies === null ? null : `Allergies: ${booking.allergies}`;
  return [
    `Code: ${booking.confirmation_code}`,
    booking.customer_notes,
    ...(privateNotes ? [allergies, booking.staff_notes] : []),
  ]
    .filter((line) => line !== null && line.trim() !== '')
    .join('\n');
}

export interface RenderedFeed {
  body: string;
  /** Strong: a hash of the body, which holds no instant of its own (DTSTAMP is the booking's last change). */
  etag: string;
}

/**
 * The iCalendar text of the feed a token opens; undefined for a token that opens none. Every time
 * is written in UTC and the calendar names no time zone: a TZID with plain UTC instants would
 * shift every event by the zone's offset.
 */
export async function renderFeed(
  executor: Executor,
  file: string,
  now: number,
  host: string,
): Promise<RenderedFeed | undefined> {
  const token = FEED_FILE.exec(file)?.[1];
  if (!token) return undefined;
  const feed = await feedByTokenHash(executor, sha256(token));
  if (!feed) return undefined;
  const bookings = await feedBookings(executor, feed.business_id, feed.resource_id, {
    from: new Date(now - FEED_PAST_MS),
    to: new Date(now + FEED_AHEAD_MS),
    cancelledSince: new Date(now - CANCELLED_KEPT_MS),
  });
  const partyOf = PARTY_OF[feed.language] ?? PARTY_OF.en!;
  const calendar = icalGenerator({
    name: feed.resource_name ? `${feed.business_name} - ${feed.resource_name}` : feed.business_name,
    prodId: { company: 'Slotwise', product: 'Bookings', language: 'EN' },
  });
  for (const booking of bookings) {
    calendar.createEvent({
      id: bookingUid(booking.id, host),
      sequence: sequenceOf(booking),
      stamp: booking.updated_at,
      start: booking.starts_at,
      end: booking.ends_at,
      status: STATUS_OF[booking.status as BookingStatus],
      summary: `${partyOf(booking.capacity)} - ${booking.guest_name}`,
      location: booking.table_names,
      description: describe(booking, feed.private_notes),
    });
  }
  const body = calendar.toString();
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url')}"` };
}
