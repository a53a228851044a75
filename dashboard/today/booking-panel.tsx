import { useEffect, useRef } from 'preact/hooks';
import { t } from '../i18n.ts';
import { depositDue, guestName, STATUS_ICON, statusText } from './booking-text.ts';
import { selectedBooking } from './selection.ts';

/**
 * The selected booking, read-only. What staff do with a booking (seat, move, cancel...) is added
 * here; the Today screen shows this panel whenever `selectedBooking` is set.
 */
export function BookingPanel() {
  const selected = selectedBooking.value;
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [selected?.booking.id]);
  if (!selected) return null;
  const { booking, tables } = selected;
  return (
    <aside class="panel" aria-labelledby="panel-title">
      <h2 id="panel-title" tabIndex={-1} ref={heading}>
        {t('details')}: {guestName(booking)}
      </h2>
      <dl>
        <dt>{t('time')}</dt>
        <dd>
          {booking.start_time}–{booking.end_time}
        </dd>
        <dt>{t('party')}</dt>
        <dd>{t('guests', { n: booking.capacity })}</dd>
        <dt>{t('name')}</dt>
        <dd>{guestName(booking)}</dd>
        <dt>{t('phone')}</dt>
        <dd>{booking.customer.phone}</dd>
        <dt>{t('status')}</dt>
        <dd>
          <span aria-hidden="true">{STATUS_ICON[booking.status]} </span>
          {statusText(booking.status)}
          {depositDue(booking) && `, ${t('deposit')}`}
        </dd>
        <dt>{tables.length > 1 ? t('tables') : t('table')}</dt>
        <dd>{tables.join(' + ')}</dd>
        <dt>{t('code')}</dt>
        <dd>{booking.confirmation_code}</dd>
        {booking.customer_notes && (
          <>
            <dt>{t('guestNotes')}</dt>
            <dd>{booking.customer_notes}</dd>
          </>
        )}
        {booking.staff_notes && (
          <>
            <dt>{t('notes')}</dt>
            <dd>{booking.staff_notes}</dd>
          </>
        )}
      </dl>
      <button type="button" class="quiet" onClick={() => (selectedBooking.value = null)}>
        {t('close')}
      </button>
    </aside>
  );
}
