import { t } from '../i18n.ts';
import { STATUS_ICON, statusText } from '../status-text.ts';
import { depositDue, guestMarks, guestName, timeRange } from './booking-text.ts';
import { type Booking, type BookingItem, type DayPlan, tableNames } from './day-plan.ts';
import { selectedBooking } from './selection.ts';

/** The day's bookings in order of their start, one line each: the Today screen on a phone. */
export function BookingList({ plan, onSelect }: { plan: DayPlan; onSelect: (item: BookingItem) => void }) {
  if (!plan.bookings.length) return <p>{t('noBookings')}</p>;
  const selectedId = selectedBooking.value?.booking.id;
  return (
    <ol class="day-list">
      {plan.bookings.map((item) => (
        <li key={item.booking.id}>
          <button
            type="button"
            class={`line st-${item.booking.status}`}
            data-booking={item.booking.id}
            aria-pressed={item.booking.id === selectedId}
            onClick={() => onSelect(item)}
          >
            <span class="line-time">{timeRange(item)}</span>
            <span class="line-who">
              <strong>{guestName(item.booking)}</strong>, {t('guests', { n: item.booking.capacity })}
              {item.booking.partner && (
                <>
                  {' '}
                  <span class="line-partner">
                    {t('lineThroughPartner', { name: item.booking.partner.name })}
                  </span>
                </>
              )}
            </span>
            <span class="line-where">{tableNames(plan, item).join(' + ')}</span>
            <LineMarks booking={item.booking} />
            <span class="line-status">
              <span aria-hidden="true">{STATUS_ICON[item.booking.status]} </span>
              {statusText(item.booking.status)}
              {depositDue(item.booking) && `, ${t('deposit')}`}
            </span>
          </button>
        </li>
      ))}
    </ol>
  );
}

/** The guest's allergies (an icon and the word) and tags, on a line of their own. */
function LineMarks({ booking }: { booking: Booking }) {
  const { allergies, tags } = guestMarks(booking);
  if (!allergies && !tags.length) return null;
  return (
    <span class="line-marks">
      {allergies && (
        <span class="line-allergy">
          <span aria-hidden="true">⚠ </span>
          {t('profileAllergies')}: {allergies}
        </span>
      )}
      {tags.map((tag) => (
        <span key={tag} class="line-tag">
          {tag}
        </span>
      ))}
    </span>
  );
}
