import type { components } from '@slotwise/sdk';
import { useEffect, useRef, useState } from 'preact/hooks';
import { PARTY_SIZE_MAX } from '../../src/engine/party.ts';
import { dayShort } from '../../widget/format.ts';
import { call } from '../api.ts';
import { Dialog } from '../dialog.tsx';
import { language, t } from '../i18n.ts';
import { useLatest } from '../latest.ts';
import { refusalText, report } from '../problems.ts';
import { TimeInput } from '../time-input.tsx';
import { venueTime } from '../venue.ts';

type Booking = components['schemas']['Booking'];
type Slot = components['schemas']['Slot'];

/** What the form starts with: the day shown, and a waitlist entry's party and contact. */
export interface BookingDraft {
  date: string;
  capacity?: number;
  time?: string;
  first_name?: string;
  last_name?: string;
  phone?: string;
  email?: string;
  notes?: string;
}

/** A booking made, and whether its guest was sent a deposit link. */
export interface Booked {
  /** The booking, or a series' first. */
  booking: Booking;
  depositLink: boolean;
  /** A weekly series' occurrences that could not be booked, and why. */
  notPlaced?: components['schemas']['PlacedBookingSeries']['not_placed'];
}

/** Says which weeks of a series were not booked, and why. */
export function notPlacedText(notPlaced: NonNullable<Booked['notPlaced']>): string {
  const dates = notPlaced
    .map(
      (week) => `${dayShort(language.value, week.booking_date)} (${refusalText(week.reason, week.message)})`,
    )
    .join(', ');
  return t('newSeriesNotPlaced', { n: notPlaced.length, dates });
}

/** How many weeks a series may run: the API's bounds. */
const SERIES_WEEKS = { min: 2, max: 52 };

const validParty = (party: string) => /^\d+$/.test(party) && Number(party) >= 1 && Number(party) <= 50;

/** The day's free times for the party, as staff may book them; reloaded as the party or the date changes. */
function useFreeTimes(date: string, party: string) {
  const [slots, setSlots] = useState<Slot[] | null>(null);
  useLatest(
    () => {
      setSlots(null);
      if (!validParty(party) || !date) return null;
      return call((api) =>
        api.GET('/v1/manage/availability', { params: { query: { date, capacity: Number(party) } } }),
      );
    },
    (answer) => setSlots(answer.slots.filter((slot) => slot.available)),
    [date, party],
  );
  return slots;
}

/** Whether the business takes deposits: the deposit link is offered only then. */
function useDeposits(): boolean {
  const [deposits, setDeposits] = useState(false);
  useEffect(() => {
    call((api) => api.GET('/v1/manage/settings'))
      .then((settings) => setDeposits(settings.deposit_type !== 'none'))
      .catch(report);
  }, []);
  return deposits;
}

/**
 * A walk-in or a phone call: party, day, a free time (any minute may be typed: staff book beyond
 * the online grid), the guest, and a deposit link when the business takes deposits. "Walk-in
 * (now)" seats the party at the venue's current minute on whatever table is free: the party alone is
 * enough, the guest's fields are kept when filled in.
 */
export function NewBookingDialog({
  draft,
  title,
  repeatable = false,
  onBooked,
  onClose,
}: {
  draft: BookingDraft;
  title?: string;
  /** "Repeat weekly" is offered: the booking may be a series. */
  repeatable?: boolean;
  onBooked: (booked: Booked) => void;
  onClose: () => void;
}) {
  const [party, setParty] = useState(String(draft.capacity ?? 2));
  const [date, setDate] = useState(draft.date);
  const [time, setTime] = useState(draft.time ?? '');
  const [firstName, setFirstName] = useState(draft.first_name ?? '');
  const [lastName, setLastName] = useState(draft.last_name ?? '');
  const [phone, setPhone] = useState(draft.phone ?? '');
  const [email, setEmail] = useState(draft.email ?? '');
  const [notes, setNotes] = useState(draft.notes ?? '');
  const [withDeposit, setWithDeposit] = useState(false);
  const [repeat, setRepeat] = useState(false);
  const [weeks, setWeeks] = useState('4');
  const [busy, setBusy] = useState(false);
  const timeInput = useRef<HTMLInputElement>(null);
  const slotList = useRef<HTMLDivElement>(null);
  const slots = useFreeTimes(date, party);
  // The time asked for (a waitlist entry's earliest) in view among the day's free times.
  useEffect(() => {
    slotList.current?.querySelector('input:checked')?.scrollIntoView({ block: 'nearest' });
  }, [slots]);
  const deposits = useDeposits();

  async function submit(event: SubmitEvent) {
    event.preventDefault();
    const walkIn = (event.submitter as HTMLElement | null)?.dataset.walkIn !== undefined;
    const given = (value: string) => value.trim() || undefined;
    if (walkIn) {
      // A walk-in needs only its party: the API seats it at the venue's minute, names and phone optional.
      if (!validParty(party)) return;
      await book(() =>
        call((api) =>
          api.POST('/v1/manage/bookings/staff', {
            body: {
              walk_in: true,
              capacity: Number(party),
              first_name: given(firstName),
              last_name: given(lastName),
              phone: given(phone),
              email: given(email) ?? null,
              notes: given(notes) ?? null,
            },
          }),
        ).then((made) => {
          if (!('booking' in made)) throw new Error('a walk-in was answered as a series');
          return { booking: made.booking, depositLink: false };
        }),
      );
      return;
    }
    if (!time) {
      timeInput.current!.setCustomValidity(t('newPickTime'));
      timeInput.current!.reportValidity();
      return;
    }
    const body = {
      date,
      time,
      capacity: Number(party),
      first_name: firstName.trim(),
      last_name: lastName.trim(),
      phone: phone.trim(),
      email: email.trim() || null,
      notes: notes.trim() || null,
    };
    const depositLink = withDeposit && deposits;
    if (repeat && !depositLink) {
      await book(async () => {
        const made = await call((api) =>
          api.POST('/v1/manage/bookings/staff', {
            body: { ...body, recurrence: { every_weeks: 1, count: Number(weeks) } },
          }),
        );
        if (!('bookings' in made)) return { booking: made.booking, depositLink: false };
        return { booking: made.bookings[0]!, depositLink: false, notPlaced: made.not_placed };
      });
      return;
    }
    await book(async () => {
      const made = depositLink
        ? await call((api) =>
            api.POST('/v1/manage/bookings/staff-deposit', { body: { ...body, email: body.email ?? '' } }),
          )
        : await call((api) => api.POST('/v1/manage/bookings/staff', { body }));
      if (!('booking' in made)) throw new Error('a single booking was answered as a series');
      return { booking: made.booking, depositLink };
    });
  }

  async function book(made: () => Promise<Booked>) {
    setBusy(true);
    try {
      onBooked(await made());
    } catch (error) {
      report(error);
      setBusy(false);
    }
  }

  return (
    <Dialog title={title ?? t('newTitle')} onClose={onClose}>
      <form class="new-booking" onSubmit={submit}>
        <div class="new-when">
          <label>
            <span>{t('party')}</span>
            <input
              type="number"
              inputMode="numeric"
              min={1}
              max={PARTY_SIZE_MAX}
              required
              autoFocus
              value={party}
              onInput={(event) => setParty(event.currentTarget.value)}
            />
          </label>
          <label>
            <span>{t('date')}</span>
            <input
              type="date"
              required
              value={date}
              onInput={(event) => setDate(event.currentTarget.value)}
            />
          </label>
          <label>
            <span>{t('time')}</span>
            <TimeInput inputRef={timeInput} value={time} onTime={setTime} />
          </label>
        </div>
        <fieldset class="new-times">
          <legend>{t('newFreeTimes')}</legend>
          {!validParty(party) ? (
            <p class="hint">{t('newPartyFirst')}</p>
          ) : slots === null ? (
            <p class="hint" role="status">
              {t('loading')}
            </p>
          ) : slots.length === 0 ? (
            <p class="hint" role="status">
              {t('newNoFreeTime')}
            </p>
          ) : (
            <div class="new-slots" ref={slotList}>
              {slots.map((slot) => (
                <label key={slot.time} class="slot">
                  <input
                    type="radio"
                    name="free-time"
                    value={slot.time}
                    checked={slot.time === time}
                    onChange={() => {
                      timeInput.current?.setCustomValidity('');
                      setTime(slot.time);
                    }}
                  />
                  <span>{venueTime(slot.time)}</span>
                </label>
              ))}
            </div>
          )}
        </fieldset>
        <div class="new-guest">
          <label>
            <span>{t('newFirstName')}</span>
            <input
              required
              maxLength={100}
              autoComplete="off"
              value={firstName}
              onInput={(event) => setFirstName(event.currentTarget.value)}
            />
          </label>
          <label>
            <span>{t('newLastName')}</span>
            <input
              required
              maxLength={100}
              autoComplete="off"
              value={lastName}
              onInput={(event) => setLastName(event.currentTarget.value)}
            />
          </label>
          <label>
            <span>{t('phone')}</span>
            <input
              type="tel"
              required
              maxLength={40}
              autoComplete="off"
              value={phone}
              onInput={(event) => setPhone(event.currentTarget.value)}
            />
          </label>
          <label>
            <span>{t('email')}</span>
            <input
              type="email"
              required={withDeposit}
              maxLength={254}
              autoComplete="off"
              value={email}
              onInput={(event) => setEmail(event.currentTarget.value)}
            />
          </label>
          <label class="wide">
            <span>{t('notes')}</span>
            <textarea
              maxLength={1000}
              rows={2}
              value={notes}
              onInput={(event) => setNotes(event.currentTarget.value)}
            />
          </label>
        </div>
        {repeatable && (
          <div class="new-repeat">
            <label class="check">
              <input
                type="checkbox"
                checked={repeat}
                disabled={withDeposit}
                onChange={(event) => setRepeat(event.currentTarget.checked)}
              />
              <span>{t('newRepeat')}</span>
            </label>
            {repeat && (
              <label>
                <span>{t('newRepeatWeeks')}</span>
                <input
                  type="number"
                  inputMode="numeric"
                  min={SERIES_WEEKS.min}
                  max={SERIES_WEEKS.max}
                  required
                  value={weeks}
                  onInput={(event) => setWeeks(event.currentTarget.value)}
                />
              </label>
            )}
          </div>
        )}
        {deposits && (
          <label class="check">
            <input
              type="checkbox"
              checked={withDeposit}
              disabled={repeat}
              onChange={(event) => setWithDeposit(event.currentTarget.checked)}
            />
            <span>{t('newDepositLink')}</span>
          </label>
        )}
        <div class="sheet-actions">
          <button type="submit" disabled={busy}>
            {t('newBook')}
          </button>
          <button type="submit" class="quiet" data-walk-in="" formNoValidate disabled={busy}>
            {t('newWalkIn')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
