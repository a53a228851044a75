import { useEffect, useState } from 'preact/hooks';
import { BOOKING_STATUSES } from '../../src/engine/status.ts';
import { instantToWall, minutesOf } from '../../src/engine/time.ts';
import { dayLong } from '../../widget/format.ts';
import { call } from '../api.ts';
import { dataChanged, versionOf } from '../changes.ts';
import { isDate } from '../dates.ts';
import { DayNav } from '../day-nav.tsx';
import { CsvDownload } from '../download.tsx';
import { language, t } from '../i18n.ts';
import { useLatest } from '../latest.ts';
import { type Booked, NewBookingDialog, notPlacedText } from '../new-booking/new-booking-dialog.tsx';
import { clearProblem, problem } from '../problems.ts';
import type { ScreenProps } from '../router.ts';
import { go } from '../router.ts';
import { STATUS_ICON, statusText } from '../status-text.ts';
import { venue } from '../venue.ts';
import { BookingList } from './booking-list.tsx';
import { BookingPanel } from './booking-panel.tsx';
import { type BookingItem, type DayPlan, loadDayPlan, tableNames } from './day-plan.ts';
import { selectedBooking } from './selection.ts';
import { Timeline } from './timeline.tsx';

/** The minute of the day it is in the venue's zone, kept current while the screen is open. */
function useNow(timeZone: string): { date: string; minute: number } {
  const read = () => {
    const { date, time } = instantToWall(Date.now(), timeZone);
    return { date, minute: minutesOf(time)! };
  };
  const [now, setNow] = useState(read);
  useEffect(() => {
    const timer = setInterval(() => setNow(read()), 30_000);
    return () => clearInterval(timer);
  }, [timeZone]);
  return now;
}

/** Today, or any day (`#/today/<date>`): the tables' timeline, or the bookings' list, and the selected booking. */
export default function TodayScreen({ params }: ScreenProps) {
  const { timezone } = venue.value!;
  const now = useNow(timezone);
  const date = isDate(params[0]) ? params[0] : now.date;
  const [plan, setPlan] = useState<DayPlan | null>(null);
  const [view, setView] = useState<'timeline' | 'list'>(() =>
    matchMedia('(max-width: 600px)').matches ? 'list' : 'timeline',
  );
  const [creating, setCreating] = useState(false);
  const version = versionOf('bookings', 'settings');

  useLatest(
    () => loadDayPlan(date, timezone),
    (loaded) => {
      setPlan(loaded);
      const selectedId = selectedBooking.peek()?.booking.id;
      const still = loaded.bookings.find((item) => item.booking.id === selectedId);
      selectedBooking.value = still ? { booking: still.booking, tables: tableNames(loaded, still) } : null;
    },
    [date, timezone, version],
  );

  const select = (item: BookingItem) => {
    if (plan) selectedBooking.value = { booking: item.booking, tables: tableNames(plan, item) };
  };
  /** The new booking selected on its day's timeline, which reloads with it. */
  const booked = ({ booking, notPlaced }: Booked) => {
    setCreating(false);
    clearProblem();
    if (notPlaced?.length) problem.value = notPlacedText(notPlaced);
    selectedBooking.value = { booking, tables: [booking.resource.name] };
    if (booking.booking_date !== date) go('today', booking.booking_date);
    dataChanged();
  };
  const shown = plan?.date === date ? plan : null;
  const covers = shown?.bookings.reduce((sum, item) => sum + item.booking.capacity, 0) ?? 0;

  return (
    <div class="today">
      <h1>{dayLong(language.value, date)}</h1>
      <div class="toolbar">
        <DayNav screen="today" date={date} today={now.date} />
        <button type="button" class="new-open" onClick={() => setCreating(true)}>
          <span aria-hidden="true">+ </span>
          {t('newBooking')}
        </button>
        <fieldset class="views">
          <legend class="sr-only">{t('view')}</legend>
          <button type="button" aria-pressed={view === 'timeline'} onClick={() => setView('timeline')}>
            {t('timeline')}
          </button>
          <button type="button" aria-pressed={view === 'list'} onClick={() => setView('list')}>
            {t('list')}
          </button>
        </fieldset>
      </div>
      {!shown ? (
        <p role="status">{t('loading')}</p>
      ) : (
        <>
          <p class="summary" role="status">
            {t('bookingCount', { n: shown.bookings.length, covers })}
          </p>
          {!shown.open && !shown.bookings.length ? (
            <p>{t('closed')}</p>
          ) : view === 'timeline' ? (
            <>
              <Timeline plan={shown} now={date === now.date ? now.minute : null} onSelect={select} />
              <ul class="legend" aria-label={t('statusLegend')}>
                {BOOKING_STATUSES.filter((status) => status !== 'cancelled').map((status) => (
                  <li key={status} class={`st-${status}`}>
                    <span class="swatch" aria-hidden="true">
                      {STATUS_ICON[status]}
                    </span>
                    {statusText(status)}
                  </li>
                ))}
                <li>
                  <span class="swatch deposit" aria-hidden="true">
                    €
                  </span>
                  {t('deposit')}
                </li>
                <li>
                  <span class="swatch allergy" aria-hidden="true">
                    ⚠
                  </span>
                  {t('profileAllergies')}
                </li>
              </ul>
              <p class="hint">{t('panelDragHint')}</p>
            </>
          ) : (
            <>
              <BookingList plan={shown} onSelect={select} />
              <CsvDownload
                filename={`bookings-${date}.csv`}
                load={() =>
                  call((api) =>
                    api.GET('/v1/manage/bookings.csv', {
                      params: { query: { booking_date: date } },
                      parseAs: 'blob',
                    }),
                  )
                }
              />
            </>
          )}
          <BookingPanel />
        </>
      )}
      {creating && (
        <NewBookingDialog draft={{ date }} repeatable onBooked={booked} onClose={() => setCreating(false)} />
      )}
    </div>
  );
}
