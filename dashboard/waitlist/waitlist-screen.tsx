import type { operations } from '@slotwise/sdk';
import { useEffect, useState } from 'preact/hooks';
import { dayLong } from '../../widget/format.ts';
import { allPages, call } from '../api.ts';
import { dataChanged, versionOf } from '../changes.ts';
import { isDate, venueNow } from '../dates.ts';
import { DayNav } from '../day-nav.tsx';
import { language, t } from '../i18n.ts';
import { useLatest } from '../latest.ts';
import { type Booked, type BookingDraft, NewBookingDialog } from '../new-booking/new-booking-dialog.tsx';
import { clearProblem, report } from '../problems.ts';
import type { ScreenProps } from '../router.ts';
import { venue, venueTime } from '../venue.ts';
import { AddEntryDialog } from './add-entry-dialog.tsx';

type Entry = operations['listWaitlist']['responses'][200]['content']['application/json']['items'][number];

const personOf = (entry: Entry) => entry.guest ?? entry.customer;
const nameOf = (entry: Entry) => `${personOf(entry).first_name} ${personOf(entry).last_name}`.trim();

/** The entry's party and contact, to book it on the day it wants (or the day shown) from its earliest time. */
const draftOf = (entry: Entry, date: string): BookingDraft => ({
  date: entry.preferred_date ?? date,
  capacity: entry.capacity,
  time: entry.preferred_time_from ?? undefined,
  first_name: personOf(entry).first_name,
  last_name: personOf(entry).last_name,
  phone: entry.customer.phone,
  email: personOf(entry).email ?? undefined,
  notes: entry.notes ?? undefined,
});

/**
 * The waitlist of a day (`#/waitlist/<date>`, today by default): that day's entries and the
 * undated ones, in the order they came. An entry is booked through the new-booking form and then
 * taken off the list; an entry is added when a guest calls.
 */
export default function WaitlistScreen({ params }: ScreenProps) {
  const { timezone } = venue.value!;
  const today = venueNow(timezone).date;
  const date = isDate(params[0]) ? params[0] : today;
  const [entries, setEntries] = useState<{ date: string; items: Entry[] } | null>(null);
  const [booking, setBooking] = useState<Entry | null>(null);
  const [adding, setAdding] = useState(false);
  const [said, setSaid] = useState('');
  const version = versionOf('waitlist');
  useEffect(() => setSaid(''), [date]);

  useLatest(
    () =>
      allPages((cursor) =>
        call((api) =>
          api.GET('/v1/manage/waitlist', { params: { query: { preferred_date: date, limit: 200, cursor } } }),
        ),
      ),
    (items) => setEntries({ date, items }),
    [date, version],
  );

  async function remove(entry: Entry, done: string) {
    try {
      await call((api) =>
        api.DELETE('/v1/manage/waitlist/{entry_id}', { params: { path: { entry_id: entry.id } } }),
      );
      clearProblem();
      setSaid(done);
      dataChanged();
    } catch (error) {
      report(error);
    }
  }

  // No route links a staff booking to an entry: once booked, the entry is removed.
  const booked = (entry: Entry) => (made: Booked) => {
    setBooking(null);
    const { booking_date, start_time, resource } = made.booking;
    remove(
      entry,
      t('waitBooked', {
        name: nameOf(entry),
        date: dayLong(language.value, booking_date),
        time: venueTime(start_time),
        table: resource.name,
      }),
    );
  };

  const shown = entries?.date === date ? entries.items : null;
  return (
    <div class="waitlist">
      <h1>
        {t('waitTitle')}: {dayLong(language.value, date)}
      </h1>
      <div class="toolbar">
        <DayNav screen="waitlist" date={date} today={today} />
        <button type="button" class="new-open" onClick={() => setAdding(true)}>
          <span aria-hidden="true">+ </span>
          {t('waitAdd')}
        </button>
      </div>
      <p class="summary" role="status">
        {shown ? t('waitCount', { n: shown.length }) : t('loading')}
      </p>
      <p class="said" role="status">
        {said}
      </p>
      {shown && !shown.length && <p>{t('waitEmpty')}</p>}
      {shown && shown.length > 0 && (
        <ol class="wait-list">
          {shown.map((entry) => (
            <li key={entry.id} aria-labelledby={`wait-${entry.id}`}>
              <h2 id={`wait-${entry.id}`}>
                <span class="wait-position">{entry.position}.</span> {nameOf(entry)},{' '}
                {t('guests', { n: entry.capacity })}
              </h2>
              <dl>
                <dt>{t('phone')}</dt>
                <dd>{entry.customer.phone}</dd>
                <dt>{t('waitWhen')}</dt>
                <dd>
                  {entry.preferred_date ? dayLong(language.value, entry.preferred_date) : t('waitAnyDay')}
                  {entry.preferred_time_from &&
                    entry.preferred_time_to &&
                    `, ${venueTime(entry.preferred_time_from)}–${venueTime(entry.preferred_time_to)}`}
                </dd>
                {entry.notes && (
                  <>
                    <dt>{t('notes')}</dt>
                    <dd>{entry.notes}</dd>
                  </>
                )}
                {(entry.offered_at || entry.booked_booking_id) && (
                  <>
                    <dt>{t('status')}</dt>
                    <dd>{entry.booked_booking_id ? t('waitOfferBooked') : t('waitOfferSent')}</dd>
                  </>
                )}
              </dl>
              <div class="wait-actions">
                <button
                  type="button"
                  aria-label={t('waitBookFor', { name: nameOf(entry) })}
                  onClick={() => setBooking(entry)}
                >
                  {t('newBook')}
                </button>
                <button
                  type="button"
                  class="quiet"
                  aria-label={t('waitRemoveFor', { name: nameOf(entry) })}
                  onClick={() => remove(entry, t('waitRemoved', { name: nameOf(entry) }))}
                >
                  {t('waitRemove')}
                </button>
              </div>
            </li>
          ))}
        </ol>
      )}
      {booking && (
        <NewBookingDialog
          title={t('waitBookFor', { name: nameOf(booking) })}
          draft={draftOf(booking, date)}
          onBooked={booked(booking)}
          onClose={() => setBooking(null)}
        />
      )}
      {adding && (
        <AddEntryDialog
          date={date}
          onAdded={(name) => {
            setAdding(false);
            setSaid(t('waitAdded', { name }));
            dataChanged();
          }}
          onClose={() => setAdding(false)}
        />
      )}
    </div>
  );
}
