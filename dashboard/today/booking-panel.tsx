import type { components, operations } from '@slotwise/sdk';
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { PARTY_SIZE_MAX } from '../../src/engine/party.ts';
import { allowsMove, type BookingStatus, isTerminal, waitsForStart } from '../../src/engine/status.ts';
import { instantToWall } from '../../src/engine/time.ts';
import { dayShort } from '../../widget/format.ts';
import { call } from '../api.ts';
import { dataChanged, versionOf } from '../changes.ts';
import { Confirm } from '../confirm.tsx';
import { isTextKey, language, t } from '../i18n.ts';
import { useLatest } from '../latest.ts';
import { report } from '../problems.ts';
import { STATUS_ICON, statusText } from '../status-text.ts';
import { TimeInput } from '../time-input.tsx';
import { venue, venueTime } from '../venue.ts';
import { depositDue, guestName } from './booking-text.ts';
import type { Booking } from './day-plan.ts';
import { PanelGuest } from './panel-guest.tsx';
import { focusBooking, selectedBooking } from './selection.ts';

type Message = components['schemas']['Message'];
type AuditEntry =
  operations['listAuditLogs']['responses'][200]['content']['application/json']['items'][number];
type BookingChange = NonNullable<operations['updateBooking']['requestBody']>['content']['application/json'];
type TableChoice = { id: string; name: string };

const PHONE = '(max-width: 600px)';

/** Whether the viewport is a phone's, kept current as it turns or resizes. */
function usePhone(): boolean {
  const [phone, setPhone] = useState(() => matchMedia(PHONE).matches);
  useEffect(() => {
    const query = matchMedia(PHONE);
    const follow = () => setPhone(query.matches);
    query.addEventListener('change', follow);
    return () => query.removeEventListener('change', follow);
  }, []);
  return phone;
}

/** A change of the booking through the API; the shown data reloads after it, a refusal is said. */
async function act(change: () => Promise<unknown>): Promise<boolean> {
  try {
    await change();
    dataChanged();
    return true;
  } catch (error) {
    report(error);
    return false;
  }
}

const patchBooking = (booking: Booking, body: BookingChange) =>
  act(() =>
    call((api) =>
      api.PATCH('/v1/manage/bookings/{booking_id}', { params: { path: { booking_id: booking.id } }, body }),
    ),
  );

/**
 * The selected booking and what staff do with it: the status moves its status allows, its party,
 * notes, table and time, its deposit hold, then its messages and history. Beside the day on a
 * tablet; a full-screen dialog on a phone. Closing it gives the focus back to the booking.
 */
export function BookingPanel() {
  const selected = selectedBooking.value;
  const phone = usePhone();
  const heading = useRef<HTMLHeadingElement>(null);
  const dialog = useRef<HTMLDialogElement>(null);
  const shownId = selected?.booking.id;
  useEffect(() => {
    if (!shownId) return;
    if (phone && dialog.current && !dialog.current.open) dialog.current.showModal();
    heading.current?.focus();
  }, [shownId, phone]);
  if (!selected) return null;
  const { booking, tables } = selected;
  const close = () => {
    selectedBooking.value = null;
    focusBooking(booking.id);
  };
  const body = (
    <>
      <div class="panel-head">
        <h2 id="panel-title" tabIndex={-1} ref={heading}>
          {t('details')}: {guestName(booking)}
        </h2>
        <button type="button" class="quiet" onClick={close}>
          {t('close')}
        </button>
      </div>
      <dl>
        <dt>{t('time')}</dt>
        <dd>
          {venueTime(booking.start_time)}–{venueTime(booking.end_time)}
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
          {booking.deposit?.status === 'held' && `, ${t('panelHeld')}`}
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
      </dl>
      {booking.partner && (
        <p class="panel-partner">{t('panelBookedThrough', { name: booking.partner.name })}</p>
      )}
      <PanelGuest booking={booking} />
      <StatusActions key={`${booking.id}-${booking.status}`} booking={booking} />
      {booking.series_id && !isTerminal(booking.status) && booking.status !== 'checked_in' && (
        <SeriesActions key={`series-${booking.id}`} booking={booking} seriesId={booking.series_id} />
      )}
      {!isTerminal(booking.status) && (
        <>
          <PartyForm key={`party-${booking.id}-${booking.capacity}`} booking={booking} />
          <MovePicker
            key={`move-${booking.id}-${booking.start_time}-${booking.resource_id}`}
            booking={booking}
          />
        </>
      )}
      <NotesForm key={`notes-${booking.id}-${booking.staff_notes}`} booking={booking} />
      <Messages booking={booking} />
      <History booking={booking} />
    </>
  );
  if (phone) {
    return (
      <dialog
        ref={dialog}
        class="panel panel-full"
        aria-labelledby="panel-title"
        onClose={() => selectedBooking.peek()?.booking.id === booking.id && close()}
      >
        {body}
      </dialog>
    );
  }
  return (
    <aside class="panel" aria-labelledby="panel-title">
      {body}
    </aside>
  );
}

/** A part of the panel, a region named by its heading. */
function Section({ title, children }: { title: string; children: ComponentChildren }) {
  const id = useId();
  return (
    <section class="panel-part" aria-labelledby={id}>
      <h3 id={id}>{title}</h3>
      {children}
    </section>
  );
}

/** How long before its start a check-in is asked about: a guest that early is likely another booking's. */
const EARLY_CHECK_IN_MINUTES = 30;

const minutesToStart = (booking: Booking) => (Date.parse(booking.starts_at) - Date.now()) / 60_000;

/** The status moves the booking's status allows (src/bookings/status.rules.ts), and its deposit hold's release. */
function StatusActions({ booking }: { booking: Booking }) {
  const [confirming, setConfirming] = useState(false);
  const [askingEarly, setAskingEarly] = useState(false);
  const cancelButton = useRef<HTMLButtonElement>(null);
  const checkInButton = useRef<HTMLButtonElement>(null);
  const { status } = booking;
  const held = booking.deposit?.status === 'held';
  const staffMay = (to: BookingStatus) => allowsMove(status, to, 'staff');
  const started = Date.now() >= Date.parse(booking.starts_at);
  const path = { params: { path: { booking_id: booking.id } } };
  const noShow = () =>
    held
      ? act(() => call((api) => api.POST('/v1/manage/bookings/{booking_id}/no-show', path)))
      : patchBooking(booking, { status: 'no_show' });
  const canNoShow = staffMay('no_show');
  const noShowWaits = canNoShow && waitsForStart(status, 'no_show') && !started;
  const canCancel = staffMay('cancelled');
  if (!canNoShow && !canCancel && !held) return null;
  return (
    <Section title={t('panelActions')}>
      <div class="panel-actions">
        {staffMay('confirmed') && (
          <button type="button" onClick={() => patchBooking(booking, { status: 'confirmed' })}>
            {t('panelConfirm')}
          </button>
        )}
        {staffMay('checked_in') && !askingEarly && (
          <button
            type="button"
            ref={checkInButton}
            onClick={() =>
              minutesToStart(booking) > EARLY_CHECK_IN_MINUTES
                ? setAskingEarly(true)
                : patchBooking(booking, { status: 'checked_in' })
            }
          >
            {t('panelCheckIn')}
          </button>
        )}
        {staffMay('completed') && (
          <button type="button" onClick={() => patchBooking(booking, { status: 'completed' })}>
            {t('panelComplete')}
          </button>
        )}
        {canNoShow && (
          <button
            type="button"
            class="quiet"
            disabled={noShowWaits}
            aria-describedby={noShowWaits ? 'panel-no-show-why' : undefined}
            onClick={noShow}
          >
            {held ? t('panelNoShowCapture') : t('panelNoShow')}
          </button>
        )}
        {held && (
          <button
            type="button"
            class="quiet"
            onClick={() =>
              act(() => call((api) => api.POST('/v1/manage/bookings/{booking_id}/release-hold', path)))
            }
          >
            {t('panelRelease')}
          </button>
        )}
        {canCancel && !confirming && (
          <button type="button" class="quiet danger" ref={cancelButton} onClick={() => setConfirming(true)}>
            {t('panelCancel')}
          </button>
        )}
      </div>
      {noShowWaits && (
        <p id="panel-no-show-why" class="hint">
          {t('panelNoShowLater', { time: venueTime(booking.start_time) })}
        </p>
      )}
      {askingEarly && (
        <Confirm
          question={t('panelCheckInEarly', {
            time: venueTime(booking.start_time),
            minutes: Math.round(minutesToStart(booking)),
          })}
          yes={t('panelCheckInAnyway')}
          no={t('panelNotYet')}
          onYes={async () => {
            if (await patchBooking(booking, { status: 'checked_in' })) setAskingEarly(false);
          }}
          onNo={() => setAskingEarly(false)}
          asker={checkInButton}
        />
      )}
      {confirming && (
        <Confirm
          question={t('panelCancelQuestion', { name: guestName(booking) })}
          yes={t('panelCancelYes')}
          no={t('panelCancelNo')}
          danger
          onYes={async () => {
            if (await patchBooking(booking, { status: 'cancelled' })) leaveDay();
          }}
          onNo={() => setConfirming(false)}
          asker={cancelButton}
        />
      )}
    </Section>
  );
}

/** A cancelled booking leaves the day (it holds no table): the panel closes and the focus goes to the day. */
function leaveDay() {
  selectedBooking.value = null;
  document.getElementById('main')?.focus();
}

/** A weekly series' occurrence: it and the following weeks cancelled together, once asked. */
function SeriesActions({ booking, seriesId }: { booking: Booking; seriesId: string }) {
  const [confirming, setConfirming] = useState(false);
  const ask = useRef<HTMLButtonElement>(null);
  return (
    <Section title={t('panelSeries')}>
      {confirming ? (
        <Confirm
          question={t('panelSeriesCancelQuestion', {
            name: guestName(booking),
            date: dayShort(language.value, booking.booking_date),
          })}
          yes={t('panelSeriesCancelYes')}
          no={t('panelCancelNo')}
          danger
          onYes={async () => {
            const cancelled = await act(() =>
              call((api) =>
                api.POST('/v1/manage/series/{series_id}/cancel', {
                  params: { path: { series_id: seriesId } },
                  body: { from_date: booking.booking_date },
                }),
              ),
            );
            if (cancelled) leaveDay();
          }}
          onNo={() => setConfirming(false)}
          asker={ask}
        />
      ) : (
        <button type="button" class="quiet danger" ref={ask} onClick={() => setConfirming(true)}>
          {t('panelSeriesCancel')}
        </button>
      )}
    </Section>
  );
}

function PartyForm({ booking }: { booking: Booking }) {
  const [party, setParty] = useState(String(booking.capacity));
  return (
    <form
      class="panel-form"
      onSubmit={(event) => {
        event.preventDefault();
        const capacity = Number(party);
        if (capacity !== booking.capacity) void patchBooking(booking, { capacity });
      }}
    >
      <label for="panel-party">{t('panelPartySize')}</label>
      <input
        id="panel-party"
        type="number"
        min={1}
        max={PARTY_SIZE_MAX}
        required
        value={party}
        onInput={(event) => setParty(event.currentTarget.value)}
      />
      <button type="submit">{t('panelSave')}</button>
    </form>
  );
}

function NotesForm({ booking }: { booking: Booking }) {
  const [notes, setNotes] = useState(booking.staff_notes ?? '');
  return (
    <form
      class="panel-form panel-notes"
      onSubmit={(event) => {
        event.preventDefault();
        void act(() =>
          call((api) =>
            api.PATCH('/v1/manage/bookings/{booking_id}/notes', {
              params: { path: { booking_id: booking.id } },
              body: { staff_notes: notes },
            }),
          ),
        );
      }}
    >
      <label for="panel-notes">{t('panelBookingNotes')}</label>
      <textarea
        id="panel-notes"
        maxLength={2000}
        rows={2}
        value={notes}
        onInput={(event) => setNotes(event.currentTarget.value)}
      />
      <button type="submit">{t('panelSaveNotes')}</button>
    </form>
  );
}

/**
 * Another table or time, by keyboard: the tables free for the booking as it stands (the API's
 * `available-resources`), and a start in 15-minute steps. The API checks the new place with every
 * rule of a new booking and refuses with 409 when it does not fit.
 */
function MovePicker({ booking }: { booking: Booking }) {
  const [time, setTime] = useState(booking.start_time);
  const [table, setTable] = useState(booking.resource_id);
  const [choices, setChoices] = useState<TableChoice[]>([]);
  useLatest(
    () =>
      call((api) =>
        api.GET('/v1/manage/bookings/{booking_id}/available-resources', {
          params: { path: { booking_id: booking.id } },
        }),
      ),
    (free) => setChoices(free.map(({ id, name }) => ({ id, name }))),
    [booking.id],
  );
  return (
    <Section title={t('panelMove')}>
      <form
        class="panel-form"
        onSubmit={(event) => {
          event.preventDefault();
          const body: { start_time?: string; resource_id?: string } = {};
          if (time !== booking.start_time) body.start_time = time;
          if (table !== booking.resource_id) body.resource_id = table;
          if (Object.keys(body).length) void patchBooking(booking, body);
        }}
      >
        <label for="panel-move-table">{t('table')}</label>
        <select id="panel-move-table" value={table} onChange={(event) => setTable(event.currentTarget.value)}>
          <option value={booking.resource_id}>
            {t('panelCurrentTable', { table: booking.resource.name })}
          </option>
          {choices.map((choice) => (
            <option key={choice.id} value={choice.id}>
              {choice.name}
            </option>
          ))}
        </select>
        <label for="panel-move-time">{t('time')}</label>
        <TimeInput id="panel-move-time" required value={time} onTime={setTime} />
        <button type="submit">{t('panelMoveButton')}</button>
      </form>
      {/* Saved at once, as the status buttons are: re-seating reads it when the next party books. */}
      <label class="check">
        <input
          type="checkbox"
          checked={booking.table_locked}
          onChange={(event) => void patchBooking(booking, { table_locked: event.currentTarget.checked })}
        />{' '}
        {t('panelTableLocked')}
      </label>
    </Section>
  );
}

/** A list of the booking's, loaded again whenever the shown data changes. */
function useBookingList<T>(bookingId: string, load: () => Promise<T[]>): T[] | null {
  const [items, setItems] = useState<{ of: string; items: T[] } | null>(null);
  const version = versionOf('bookings');
  useLatest(load, (loaded) => setItems({ of: bookingId, items: loaded }), [bookingId, version]);
  return items?.of === bookingId ? items.items : null;
}

/** An instant as the venue's wall-clock time (its date too when it is not the booking's day). */
function wallTime(iso: string, bookingDate: string): string {
  const wall = instantToWall(Date.parse(iso), venue.value!.timezone);
  const time = venueTime(wall.time.slice(0, 5));
  return wall.date === bookingDate ? time : `${wall.date} ${time}`;
}

/**
 * What the API names by a code (an audit action, a message type) in the dashboard's words; a code
 * the dashboard has no words for yet is shown as the API names it.
 */
function namedByApi(kind: 'action' | 'message', code: string): string {
  const key = `${kind}_${code.replace(/\./g, '_')}`;
  return isTextKey(key) ? t(key) : code;
}

/** What a status change moved the booking to, as `: <status in words>`; '' for any other entry. */
function newStatusText(entry: AuditEntry): string {
  const after = entry.after_state as { status?: unknown } | null;
  return entry.action === 'booking.status_changed' && typeof after?.status === 'string'
    ? `: ${statusText(after.status)}`
    : '';
}

function Messages({ booking }: { booking: Booking }) {
  const items = useBookingList<Message>(booking.id, () =>
    call((api) =>
      api.GET('/v1/manage/messages', { params: { query: { booking_id: booking.id, limit: 50 } } }),
    ).then((page) => page.items),
  );
  return (
    <Section title={t('panelMessages')}>
      {items === null ? (
        <p>{t('loading')}</p>
      ) : !items.length ? (
        <p>{t('panelNoMessages')}</p>
      ) : (
        <ul class="panel-log">
          {items.map((message) => (
            <li key={message.id}>
              <span>{wallTime(message.created_at, booking.booking_date)}</span>{' '}
              <span>
                {namedByApi('message', message.type)},{' '}
                {message.channel === 'sms' ? t('panelSms') : t('panelEmail')} {message.recipient}
              </span>{' '}
              <strong>{t(`panelMessage_${message.status}`)}</strong>
              {message.withheld_class && <span> ({t(`panelWithheld_${message.withheld_class}`)})</span>}
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}

function History({ booking }: { booking: Booking }) {
  const items = useBookingList<AuditEntry>(booking.id, () =>
    call((api) =>
      api.GET('/v1/manage/audit-logs', {
        params: { query: { entity_type: 'booking', entity_id: booking.id, limit: 50 } },
      }),
    ).then((page) => page.items),
  );
  return (
    <Section title={t('panelHistory')}>
      {items === null ? (
        <p>{t('loading')}</p>
      ) : (
        <ul class="panel-log">
          {items.map((entry) => (
            <li key={entry.id}>
              <span>{wallTime(entry.created_at, booking.booking_date)}</span>{' '}
              <span>
                {namedByApi('action', entry.action)}
                {newStatusText(entry)}
              </span>{' '}
              <span class="hint">{entry.user_email}</span>
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}
