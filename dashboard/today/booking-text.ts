/** How a booking is named on the Today screen, in the timeline, the list and the panel alike. */

import { t } from '../i18n.ts';
import { statusText } from '../status-text.ts';
import { venueMinutes } from '../venue.ts';
import type { Booking, BookingItem } from './day-plan.ts';

/** The guest's name; a walk-in who gave none is called so. */
export function guestName(booking: Booking): string {
  const person = booking.guest ?? booking.customer;
  return `${person.first_name} ${person.last_name}`.trim() || t('walkInGuest');
}

/** The one word a timeline block has room for: the last name, else the name as `guestName` gives it. */
export const shortGuestName = (booking: Booking): string =>
  (booking.guest ?? booking.customer).last_name || guestName(booking);

export const depositDue = (booking: Booking) => booking.deposit?.status === 'requires_payment';

/** The guest's allergies and tags, as the manage list answers them with each booking. */
export const guestMarks = (booking: Booking) => ({
  allergies: booking.customer.allergies ?? null,
  tags: booking.customer.tags ?? [],
});

export const timeRange = (item: { start: number; end: number }) =>
  `${venueMinutes(item.start)}–${venueMinutes(item.end)}`;

/** What a block's few words leave out: times, status, deposit, joined tables, the guest's allergies. */
export function bookingDetails(item: BookingItem): string {
  const { allergies } = guestMarks(item.booking);
  return [
    timeRange(item),
    statusText(item.booking.status),
    ...(depositDue(item.booking) ? [t('deposit')] : []),
    ...(item.joinedWith.length ? [t('with', { tables: item.joinedWith.join(' + ') })] : []),
    ...(allergies ? [`${t('profileAllergies')}: ${allergies}`] : []),
  ].join(', ');
}
