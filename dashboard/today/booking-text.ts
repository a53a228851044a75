/** How a booking is named on the Today screen, in the timeline, the list and the panel alike. */

import { BOOKING_STATUSES } from '../../src/engine/status.ts';
import { formatMinutes } from '../../src/engine/time.ts';
import { type TextKey, t } from '../i18n.ts';
import type { Booking, BookingItem } from './day-plan.ts';

/** A cue beside the status colour, so that the colour is never the only sign. */
export const STATUS_ICON: Record<string, string> = {
  pending: '?',
  confirmed: '✓',
  checked_in: '●',
  completed: '✔',
  no_show: '✕',
  cancelled: '–',
};

export const STATUSES = BOOKING_STATUSES;

export const statusText = (status: string) => t(`status_${status}` as TextKey);

export function guestName(booking: Booking): string {
  const person = booking.guest ?? booking.customer;
  return `${person.first_name} ${person.last_name}`.trim();
}

export const depositDue = (booking: Booking) => booking.deposit?.status === 'requires_payment';

export const timeRange = (item: { start: number; end: number }) =>
  `${formatMinutes(item.start)}–${formatMinutes(item.end)}`;

/** What a block's few words leave out: times, status, deposit, joined tables. */
export function bookingDetails(item: BookingItem): string {
  return [
    timeRange(item),
    statusText(item.booking.status),
    ...(depositDue(item.booking) ? [t('deposit')] : []),
    ...(item.joinedWith.length ? [t('with', { tables: item.joinedWith.join(' + ') })] : []),
  ].join(', ');
}
