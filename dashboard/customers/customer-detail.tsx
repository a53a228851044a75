import { useEffect, useRef } from 'preact/hooks';
import { dayShort } from '../../widget/format.ts';
import { language, t } from '../i18n.ts';
import { hrefOf } from '../router.ts';
import { STATUS_ICON, statusText } from '../status-text.ts';
import { venueTime } from '../venue.ts';
import { type CustomerRecord, fullName } from './customer-data.ts';
import { Privacy, ProfileFacts, ProfileForm } from './customer-profile.tsx';
import { Duplicates } from './duplicates.tsx';

/** One customer: how to reach them, what their bookings came to, and their last bookings. */
export function CustomerDetail({ customer }: { customer: CustomerRecord }) {
  const heading = useRef<HTMLHeadingElement>(null);
  // Opening a customer moves the reader to them, as a dialog would.
  useEffect(() => heading.current?.focus(), [customer.id]);
  const { stats } = customer;
  const lang = language.value;
  return (
    <section class="customer" aria-labelledby="customer-title">
      <h2 id="customer-title" tabIndex={-1} ref={heading}>
        {customer.erased_at ? t('privacyErasedGuest') : fullName(customer)}
      </h2>
      <ProfileFacts customer={customer} />
      <dl class="customer-facts">
        <dt>{t('phone')}</dt>
        <dd>
          {customer.phone ? (
            <a href={`tel:${customer.phone.replace(/[^\d+]/g, '')}`}>{customer.phone}</a>
          ) : (
            '—'
          )}
        </dd>
        <dt>{t('email')}</dt>
        <dd>{customer.email ? <a href={`mailto:${customer.email}`}>{customer.email}</a> : '—'}</dd>
        <dt>{t('customersVisits')}</dt>
        <dd>{stats.completed}</dd>
        <dt>{t('customersNoShows')}</dt>
        <dd>{stats.no_shows}</dd>
        <dt>{t('customersCancelled')}</dt>
        <dd>{stats.cancelled}</dd>
        <dt>{t('customersUpcoming')}</dt>
        <dd>{stats.upcoming}</dd>
        <dt>{t('customersSince')}</dt>
        <dd>{stats.first_booking_date ? dayShort(lang, stats.first_booking_date) : '—'}</dd>
      </dl>
      {customer.erased_at === null && <ProfileForm key={customer.updated_at} customer={customer} />}
      {customer.erased_at === null && <Duplicates customer={customer} />}
      <h3 id="customer-history">{t('customersHistory', { n: stats.total_bookings })}</h3>
      {customer.bookings.length === 0 ? (
        <p>{t('customersNoBookings')}</p>
      ) : (
        <div class="history-scroll">
          <table class="history" aria-labelledby="customer-history">
            <thead>
              <tr>
                <th scope="col">{t('date')}</th>
                <th scope="col">{t('time')}</th>
                <th scope="col">{t('party')}</th>
                <th scope="col">{t('status')}</th>
              </tr>
            </thead>
            <tbody>
              {customer.bookings.map((booking) => (
                <tr key={booking.id} class={`st-${booking.status}`}>
                  <td>
                    <a href={hrefOf('today', booking.booking_date)}>{dayShort(lang, booking.booking_date)}</a>
                  </td>
                  <td>{venueTime(booking.start_time)}</td>
                  <td>{booking.capacity}</td>
                  <td>
                    <span aria-hidden="true">{STATUS_ICON[booking.status]} </span>
                    {statusText(booking.status)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Privacy customer={customer} />
    </section>
  );
}
