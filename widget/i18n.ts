/** The widget's English texts; `{n}`, `{tz}` and the like are filled in by `fill()`. */
export const EN = {
  start: 'Make a booking',
  party: 'Number of guests',
  larger: 'For larger groups, call us:',
  largerContact: 'For larger groups, please contact us.',
  next: 'Continue',
  back: 'Back',
  day: 'Choose a day',
  prev: 'Previous month',
  later: 'Next month',
  closed: 'not available',
  full: 'fully booked, join the waitlist',
  notOnline: 'not bookable online',
  closedFor: 'closed: {note}',
  time: 'Choose a time',
  noTime: 'No time is left on this day.',
  details: 'Your details',
  first: 'First name',
  last: 'Last name',
  email: 'Email',
  phone: 'Phone',
  notes: 'Notes (optional)',
  consent: 'Send me news and offers from {venue} (optional)',
  optional: 'optional',
  book: 'Book',
  deposit: 'Deposit',
  depositText:
    'Your table is held for {minutes} minutes while you pay the deposit; unpaid after that, the booking is cancelled.',
  perPerson: '{amount} per person × {n} = {total}',
  policy: 'Booking policy',
  pay: 'Pay the deposit',
  check: 'I have paid',
  unpaid: 'The payment has not arrived yet.',
  done: 'Your booking is confirmed',
  emailed: "We've emailed your confirmation to {email}.",
  calendar: 'Add to calendar',
  code: 'Confirmation code',
  manage: 'View, change or cancel your booking',
  waitlist: 'This day is fully booked',
  waitText: 'Leave your details and we will contact you if a place frees up.',
  join: 'Join the waitlist',
  joined: 'You are on the waitlist, number {n}.',
  taken: 'This time was just taken. Please choose another one.',
  failed: 'Something went wrong. Please try again.',
  unavailable: 'Online booking is unavailable right now.',
  zone: 'Times in {tz}',
  step: 'Step {n} of 4',
  contact: 'Email or phone given when booking',
  find: 'Find my booking',
  cancel: 'Cancel the booking',
  cancelAsk: 'Cancel this booking? The venue is told.',
  cancelYes: 'Yes, cancel it',
  cancelNo: 'Keep it',
  change: 'Change date, time or party',
  changeTo: 'Change the booking',
  changed: 'Your booking was changed.',
  changeClosed: 'This booking can no longer be changed online. Please contact the venue.',
  depositChange: 'A booking with a deposit is changed by the venue. Please contact them.',
  cancelled: 'Your booking is cancelled',
  unknown: 'No booking matches these details.',
  tooLate: 'This booking can no longer be cancelled online.',
  testMode: 'Test mode: this is a sandbox, bookings made here are not real.',
  seatLeft: '1 place left',
  seatsLeft: '{n} places left',
};
export type Texts = typeof EN;

/** The languages the widget speaks; the texts of all but English are `texts/<lang>.json`. */
export const LANGUAGES = ['en', 'de', 'fr', 'nl', 'es'];

declare const SLOTWISE_TEXT_FILES: Record<string, string>;

const loaded = new Map<string, Promise<Texts>>([['en', Promise.resolve(EN)]]);

/**
 * The texts of a language: English is built in, the others are fetched once from the API's
 * `/widget/v1/texts/` (content-hashed files, cached by the browser for good). English when the
 * fetch fails.
 */
export function textsOf(lang: string, apiBase: string): Promise<Texts> {
  let texts = loaded.get(lang);
  if (!texts) {
    texts = fetch(new URL(`/widget/v1/texts/${SLOTWISE_TEXT_FILES[lang]}`, apiBase))
      .then((response) => (response.ok ? (response.json() as Promise<Partial<Texts>>) : {}))
      .then((answer) => ({ ...EN, ...answer }))
      .catch(() => {
        loaded.delete(lang);
        return EN;
      });
    loaded.set(lang, texts);
  }
  return texts;
}

/** The first supported language among the `lang` attribute, the page's `<html lang>` and the browser's. */
export function pickLanguage(...candidates: (string | null | undefined)[]): string {
  for (const candidate of candidates) {
    const base = candidate?.toLowerCase().split('-')[0];
    if (base && LANGUAGES.includes(base)) return base;
  }
  return 'en';
}

export const fill = (template: string, values: Record<string, string | number>) =>
  template.replace(/\{(\w+)\}/g, (_, name: string) => String(values[name] ?? ''));
