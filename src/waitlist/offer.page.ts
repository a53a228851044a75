import { createHash } from 'node:crypto';
import { clockFields, hourCycleOf, type TimeFormat } from '../engine/clock.ts';
import { escapeHtml } from '../engine/html.ts';
import { linkPage } from '../platform/html.ts';
import type { NotificationLanguage } from '../schema.ts';

interface Strings {
  title: string;
  intro: string;
  date: string;
  time: string;
  party: string;
  validUntil: string;
  book: string;
  booked: string;
  code: string;
  expired: string;
  expiredText: string;
  taken: string;
  takenText: string;
  unknown: string;
  unknownText: string;
  held: string;
  heldText: string;
  pay: string;
}

const STRINGS: Record<NotificationLanguage, Strings> = {
  en: {
    title: 'A table is free for you',
    intro: 'You are on the waitlist of',
    date: 'Date',
    time: 'Time',
    party: 'Guests',
    validUntil: 'This offer is valid until',
    book: 'Book this table',
    booked: 'Your table is booked',
    code: 'Confirmation code',
    expired: 'This offer has expired',
    expiredText: 'The time has been offered to the next guest waiting.',
    taken: 'This time is no longer free',
    takenText: 'It was booked before you accepted. You stay on the waitlist.',
    unknown: 'This link does not work',
    unknownText: 'The offer it pointed to does not exist.',
    held: 'Pay the deposit to confirm your table',
    heldText: 'Your table is held for you until the deposit is paid; unpaid, the booking lapses.',
    pay: 'Pay the deposit',
  },
  de: {
    title: 'Ein Tisch ist für Sie frei',
    intro: 'Sie stehen auf der Warteliste von',
    date: 'Datum',
    time: 'Uhrzeit',
    party: 'Personen',
    validUntil: 'Dieses Angebot gilt bis',
    book: 'Diesen Tisch buchen',
    booked: 'Ihr Tisch ist gebucht',
    code: 'Bestätigungscode',
    expired: 'Dieses Angebot ist abgelaufen',
    expiredText: 'Die Zeit wurde dem nächsten wartenden Gast angeboten.',
    taken: 'Diese Zeit ist nicht mehr frei',
    takenText: 'Sie wurde gebucht, bevor Sie angenommen haben. Sie bleiben auf der Warteliste.',
    unknown: 'Dieser Link funktioniert nicht',
    unknownText: 'Das Angebot, auf das er verweist, gibt es nicht.',
    held: 'Zahlen Sie die Anzahlung, um Ihren Tisch zu bestätigen',
    heldText:
      'Ihr Tisch ist für Sie reserviert, bis die Anzahlung bezahlt ist; unbezahlt verfällt die Buchung.',
    pay: 'Anzahlung bezahlen',
  },
  fr: {
    title: 'Une table est libre pour vous',
    intro: 'Vous êtes sur la liste d’attente de',
    date: 'Date',
    time: 'Heure',
    party: 'Personnes',
    validUntil: 'Cette offre est valable jusqu’au',
    book: 'Réserver cette table',
    booked: 'Votre table est réservée',
    code: 'Code de confirmation',
    expired: 'Cette offre a expiré',
    expiredText: 'L’horaire a été proposé au client suivant.',
    taken: 'Cet horaire n’est plus libre',
    takenText: 'Il a été réservé avant votre acceptation. Vous restez sur la liste d’attente.',
    unknown: 'Ce lien ne fonctionne pas',
    unknownText: 'L’offre vers laquelle il pointe n’existe pas.',
    held: 'Payez l’acompte pour confirmer votre table',
    heldText:
      'Votre table vous est réservée jusqu’au paiement de l’acompte ; sans paiement, la réservation expire.',
    pay: 'Payer l’acompte',
  },
  nl: {
    title: 'Er is een tafel vrij voor u',
    intro: 'U staat op de wachtlijst van',
    date: 'Datum',
    time: 'Tijd',
    party: 'Personen',
    validUntil: 'Dit aanbod is geldig tot',
    book: 'Deze tafel boeken',
    booked: 'Uw tafel is geboekt',
    code: 'Bevestigingscode',
    expired: 'Dit aanbod is verlopen',
    expiredText: 'De tijd is aan de volgende wachtende gast aangeboden.',
    taken: 'Deze tijd is niet meer vrij',
    takenText: 'Hij werd geboekt voordat u accepteerde. U blijft op de wachtlijst.',
    unknown: 'Deze link werkt niet',
    unknownText: 'Het aanbod waarnaar hij verwijst bestaat niet.',
    held: 'Betaal de aanbetaling om uw tafel te bevestigen',
    heldText:
      'Uw tafel wordt voor u vastgehouden tot de aanbetaling is betaald; onbetaald vervalt de boeking.',
    pay: 'Aanbetaling betalen',
  },
  es: {
    title: 'Hay una mesa libre para usted',
    intro: 'Está en la lista de espera de',
    date: 'Fecha',
    time: 'Hora',
    party: 'Personas',
    validUntil: 'Esta oferta es válida hasta',
    book: 'Reservar esta mesa',
    booked: 'Su mesa está reservada',
    code: 'Código de confirmación',
    expired: 'Esta oferta ha caducado',
    expiredText: 'La hora se ha ofrecido al siguiente cliente en espera.',
    taken: 'Esta hora ya no está libre',
    takenText: 'Se reservó antes de que usted aceptara. Sigue en la lista de espera.',
    unknown: 'Este enlace no funciona',
    unknownText: 'La oferta a la que apunta no existe.',
    held: 'Pague el depósito para confirmar su mesa',
    heldText: 'Su mesa queda reservada hasta que se pague el depósito; sin pago, la reserva caduca.',
    pay: 'Pagar el depósito',
  },
};

const languageOf = (stored: string | undefined): NotificationLanguage =>
  stored !== undefined && stored in STRINGS ? (stored as NotificationLanguage) : 'en';

const STYLE = `
body { margin: 0; background: #f4f4f6; color: #1d1d22; font: 1rem/1.5 system-ui, sans-serif; }
main { box-sizing: border-box; max-width: 28rem; margin: 2rem auto; padding: 1.5rem; background: #fff; border-radius: 0.75rem; box-shadow: 0 1px 3px rgb(0 0 0 / 0.15); }
h1 { font-size: 1.5rem; line-height: 1.25; margin: 0 0 1rem; }
p { margin: 0 0 0.75rem; }
dl { display: grid; grid-template-columns: auto 1fr; gap: 0.25rem 1rem; margin: 0 0 1rem; }
dt { font-weight: 600; }
dd { margin: 0; }
.code { font-size: 1.5rem; font-weight: 700; letter-spacing: 0.1em; }
button { margin-top: 0.5rem; width: 100%; padding: 0.75rem; font: inherit; font-weight: 600; color: #fff; background: #1f5fbf; border: 0; border-radius: 0.4rem; cursor: pointer; }
button:focus-visible, .pay:focus-visible { outline: 3px solid #1f5fbf; outline-offset: 2px; }
.pay { display: block; padding: 0.75rem; text-align: center; font-weight: 600; color: #fff; background: #1f5fbf; border-radius: 0.4rem; text-decoration: none; }
@media (max-width: 30rem) { main { margin: 0; border-radius: 0; box-shadow: none; } }
`;

/**
 * No script at all; the one style by hash; the form posts only to the page itself. The URL
 * carries the link's token: no Referer may take it elsewhere, no cache or search engine may keep
 * the page, no other site may frame it.
 */
export const OFFER_PAGE_HEADERS: Record<string, string> = {
  'Content-Security-Policy': [
    "default-src 'none'",
    `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; '),
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'X-Robots-Tag': 'noindex, nofollow',
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
};

/** Whether the offer can still be taken: open and not past its time. */
export type OfferState = 'open' | 'taken' | 'expired';

/** What the page shows of an offer, as the venue's guests read it. */
export interface OfferOnPage {
  state: OfferState;
  businessName: string;
  language: string;
  timezone: string;
  timeFormat: TimeFormat | null;
  bookingDate: string;
  startTime: string;
  party: number;
  expiresAt: Date;
  confirmationCode: string | null;
}

/** How the page answers: the offer, or the booking it made, or why neither (unknown, expired, taken meanwhile). */
export type OfferPageView =
  | { kind: 'unknown' }
  | { kind: 'offer' | 'slot_taken'; offer: OfferOnPage }
  /** `payPath`: the booking waits for its deposit, paid on that page of this origin. */
  | { kind: 'booked'; offer: OfferOnPage; payPath?: string };

const document = (language: NotificationLanguage, title: string, body: string) =>
  linkPage({ lang: language, title, style: STYLE, body });

/** The date, in words of the language; the calendar date itself, whatever the server's zone. */
const dateInWords = (date: string, language: NotificationLanguage) =>
  new Intl.DateTimeFormat(language, { dateStyle: 'full', timeZone: 'UTC' }).format(
    new Date(`${date}T12:00:00Z`),
  );

/** The offered time, a wall time `HH:MM`, on the venue's clock. */
const timeInWords = (offer: OfferOnPage, language: NotificationLanguage) =>
  new Intl.DateTimeFormat(language, {
    timeZone: 'UTC',
    ...clockFields(hourCycleOf(language, offer.timeFormat)),
  }).format(new Date(`${offer.bookingDate}T${offer.startTime}:00Z`));

/** When the offer ends, in the venue's zone and on its clock. */
const expiryInWords = (offer: OfferOnPage, language: NotificationLanguage) =>
  new Intl.DateTimeFormat(language, {
    timeZone: offer.timezone,
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    ...clockFields(hourCycleOf(language, offer.timeFormat)),
  }).format(offer.expiresAt);

/** The page behind an offer's link, in the business's language; every value from the database escaped. */
export function offerPage(view: OfferPageView): string {
  if (view.kind === 'unknown') {
    const s = STRINGS.en;
    return document(
      'en',
      escapeHtml(s.unknown),
      `<h1>${escapeHtml(s.unknown)}</h1>\n<p>${escapeHtml(s.unknownText)}</p>`,
    );
  }
  const { offer } = view;
  const language = languageOf(offer.language);
  const s = STRINGS[language];
  const venue = escapeHtml(offer.businessName);
  const details = `<dl>
<dt>${escapeHtml(s.date)}</dt><dd>${escapeHtml(dateInWords(offer.bookingDate, language))}</dd>
<dt>${escapeHtml(s.time)}</dt><dd>${escapeHtml(timeInWords(offer, language))}</dd>
<dt>${escapeHtml(s.party)}</dt><dd>${offer.party}</dd>
</dl>`;
  const state = view.kind === 'slot_taken' ? 'slot_taken' : offer.state;
  if (state === 'taken' || view.kind === 'booked') {
    // A booking waiting for its deposit says so, and where it is paid.
    const payPath = view.kind === 'booked' ? view.payPath : undefined;
    const title = payPath ? s.held : s.booked;
    const payment = payPath
      ? `<p>${escapeHtml(s.heldText)}</p>
<p><a class="pay" href="${escapeHtml(payPath)}">${escapeHtml(s.pay)}</a></p>
`
      : '';
    return document(
      language,
      `${escapeHtml(title)} - ${venue}`,
      `<h1>${escapeHtml(title)}</h1>
<p>${venue}</p>
${details}
${payment}<p>${escapeHtml(s.code)}: <span class="code">${escapeHtml(offer.confirmationCode ?? '')}</span></p>`,
    );
  }
  if (state === 'expired' || state === 'slot_taken') {
    const [title, text] = state === 'expired' ? [s.expired, s.expiredText] : [s.taken, s.takenText];
    return document(
      language,
      `${escapeHtml(title)} - ${venue}`,
      `<h1>${escapeHtml(title)}</h1>\n<p>${venue}</p>\n${details}\n<p>${escapeHtml(text)}</p>`,
    );
  }
  return document(
    language,
    `${escapeHtml(s.title)} - ${venue}`,
    `<h1>${escapeHtml(s.title)}</h1>
<p>${escapeHtml(s.intro)} <strong>${venue}</strong>.</p>
${details}
<p>${escapeHtml(s.validUntil)} ${escapeHtml(expiryInWords(offer, language))}.</p>
<form method="post">
<button type="submit">${escapeHtml(s.book)}</button>
</form>`,
  );
}
