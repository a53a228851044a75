/**
 * The booking panel's guest: the profile the host stand keeps about them (allergies first), the
 * form that changes it, and a link to all of their bookings. Loaded with the booking's other
 * parts, again whenever bookings change (a profile saved here reloads the day's marks too).
 */
import { useId, useState } from 'preact/hooks';
import { versionOf } from '../changes.ts';
import { type CustomerRecord, loadCustomer } from '../customers/customer-data.ts';
import { ProfileFacts, ProfileForm } from '../customers/customer-profile.tsx';
import { t } from '../i18n.ts';
import { useLatest } from '../latest.ts';
import { hrefOf } from '../router.ts';
import type { Booking } from './day-plan.ts';

export function PanelGuest({ booking }: { booking: Booking }) {
  const id = useId();
  const [loaded, setLoaded] = useState<CustomerRecord | null>(null);
  const version = versionOf('bookings');
  useLatest(() => loadCustomer(booking.customer_id), setLoaded, [booking.customer_id, version]);
  const customer = loaded?.id === booking.customer_id ? loaded : null;
  return (
    <section class="panel-part panel-guest" aria-labelledby={id}>
      <h3 id={id}>{t('profileEdit')}</h3>
      {customer === null ? (
        <p>{t('loading')}</p>
      ) : (
        <>
          <ProfileFacts customer={customer} />
          {customer.erased_at === null && (
            <details>
              <summary>{t('panelEditProfile')}</summary>
              <ProfileForm key={customer.updated_at} customer={customer} titled={false} />
            </details>
          )}
          <a href={hrefOf('customers', customer.id)}>{t('panelAllBookings')}</a>
        </>
      )}
    </section>
  );
}
