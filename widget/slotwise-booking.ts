import { hourCycleOf } from '../src/engine/clock.ts';
import { escapeHtml as esc } from '../src/engine/html.ts';
import { PARTY_SIZE_MAX } from '../src/engine/party.ts';
import {
  type Api,
  ApiError,
  type Booking,
  type Business,
  createApi,
  type Day,
  type GuestContact,
  type Slot,
} from './api.ts';
import {
  addMonths,
  datesOf,
  dayLong,
  dayShort,
  instantInZone,
  money,
  monthTitle,
  slotTime,
  todayIn,
  weekdayOf,
  weekdayShort,
  zoneName,
} from './format.ts';
import { EN, fill, pickLanguage, type Texts, textsOf } from './i18n.ts';
import { bookingCalendar } from './ics.ts';
import { CSS } from './styles.ts';

/** Where this script was loaded from: the API's default address (read now, while it runs). */
const SCRIPT_ORIGIN = (() => {
  const src = (document.currentScript as HTMLScriptElement | null)?.src;
  return src ? new URL(src).origin : location.origin;
})();

type Step =
  | 'party'
  | 'day'
  | 'time'
  | 'details'
  | 'waitlist'
  | 'deposit'
  | 'done'
  | 'waitlisted'
  | 'manage'
  | 'managed';
const STEP_NUMBER: Partial<Record<Step, number>> = { party: 1, day: 2, time: 3, details: 4 };

/**
 * How often the deposit step asks whether the payment has arrived: the guest's booking view
 * allows 10 calls a minute per client, and the guest may also press "I have paid".
 */
const PAYMENT_POLL_MS = 8000;

const field = (
  name: string,
  label: string,
  type: string,
  autocomplete: string,
  value = '',
  required = true,
) =>
  `<label for="sw-${name}">${esc(label)}</label><input id="sw-${name}" name="${name}" type="${type}" autocomplete="${autocomplete}" value="${esc(value)}"${required ? ' required' : ''}>`;

/** A phone as a tel: link's target: its digits and a leading plus. */
const telHref = (phone: string) => `tel:${esc(phone.replace(/[^\d+]/g, ''))}`;

/** Venue text kept as written, its line breaks too (the styles keep them). */
const paragraph = (text: string, className: string) => `<p class="${className}">${esc(text)}</p>`;

const form = (data: FormData) => Object.fromEntries([...data].map(([k, v]) => [k, String(v).trim()]));

/**
 * `<slotwise-booking business="slug" key="svc_pk_...">`: party size, a month of days, the day's
 * times, the guest's details, a deposit when the business asks for one, the confirmation; a full
 * day offers the waitlist. With `show-venue`, a header shows the venue: logo, description, address,
 * phone, email, website and booking policy (each when the venue gives it). Fires `slotwise:booked`
 * and `slotwise:error` (bubbling, composed), also to the parent window when framed by one of the
 * origins of `parent-origins` (space-separated).
 */
export class SlotwiseBooking extends HTMLElement {
  static observedAttributes = [
    'business',
    'key',
    'lang',
    'service',
    'party-max',
    'api',
    'heading-level',
    'manage',
    'show-venue',
  ];

  private readonly root = this.attachShadow({ mode: 'open' });
  private api!: Api;
  private t: Texts = EN;
  private language = 'en';
  private business?: Business;
  private step: Step = 'party';
  private party = 2;
  private month = '';
  private days = new Map<string, Day>();
  private date = '';
  private slots: Slot[] = [];
  private time = '';
  private guest: Record<string, string> = {};
  private booking?: Booking;
  private position = 0;
  /** How the guest proved the booking is theirs, on the manage steps. */
  private contact?: GuestContact;
  /** The guest is choosing a new party and time for their booking (the steps of a new one). */
  private changing = false;
  /** The guest pressed "Cancel the booking" and is asked to confirm. */
  private askingCancel = false;
  /** The booking was just changed: said on its page until the guest acts again. */
  private changedNow = false;
  private poll?: ReturnType<typeof setInterval>;
  /** Bumped by each start: answers to an earlier start's calls are dropped. */
  private generation = 0;
  private restarting = false;

  /** The venue's clock: its time format, else the language's. */
  private get hourCycle() {
    return hourCycleOf(this.language, this.business?.time_format);
  }

  constructor() {
    super();
    this.root.addEventListener('click', (event) => this.onClick(event));
    this.root.addEventListener('submit', (event) => this.onSubmit(event));
    this.root.addEventListener('keydown', (event) => this.onKey(event as KeyboardEvent));
  }

  /** Arrow keys move between the calendar's open days: a day or a week at a time. */
  private onKey(event: KeyboardEvent) {
    const step = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -7, ArrowDown: 7 }[event.key];
    const from = (event.target as HTMLElement).dataset?.date;
    if (!step || !from) return;
    const days = [...this.root.querySelectorAll<HTMLButtonElement>('[data-act=day]')];
    const index = days.findIndex((day) => day.dataset.date === from);
    for (let i = index + step; i >= 0 && i < days.length; i += Math.sign(step)) {
      if (!days[i]!.disabled && (Math.abs(step) === 1 || (i - index) % 7 === 0)) {
        event.preventDefault();
        return days[i]!.focus();
      }
    }
  }

  connectedCallback() {
    this.restart();
  }

  disconnectedCallback() {
    clearInterval(this.poll);
  }

  attributeChangedCallback() {
    this.restart();
  }

  /** Starts over once for all the attributes set together (an upgrade reports each one). */
  private restart() {
    if (this.restarting) return;
    this.restarting = true;
    queueMicrotask(() => {
      this.restarting = false;
      if (this.isConnected) void this.start();
    });
  }

  /** The title's heading level (default 2), so it fits the page's outline; each step's is one below. */
  private get level() {
    return Math.min(Math.max(Number(this.getAttribute('heading-level')) || 2, 1), 5);
  }

  private get service() {
    return this.getAttribute('service') ?? undefined;
  }

  private async start() {
    const generation = ++this.generation;
    clearInterval(this.poll);
    this.language = pickLanguage(
      this.getAttribute('lang'),
      document.documentElement.lang,
      navigator.language,
    );
    this.api = createApi(this.apiBase(), this.getAttribute('key') ?? '');
    this.root.innerHTML = `<style>${CSS}</style><section class="sw" lang="${this.language}" aria-labelledby="sw-title" aria-busy="true"><div class="head"><h${this.level} id="sw-title"></h${this.level}></div><div id="sw-body"></div><p id="sw-live" class="sr" role="status"></p><p id="sw-alert" class="alert" role="alert"></p></section>`;
    const texts = textsOf(this.language, this.apiBase());
    try {
      const business = await this.api.business(this.getAttribute('business') ?? '');
      this.t = await texts;
      if (generation !== this.generation) return;
      this.business = business;
      this.$('section').removeAttribute('aria-busy');
      this.$('#sw-title').textContent = business.name;
      if (this.hasAttribute('show-venue')) this.showVenue(business);
      if (business.is_sandbox) {
        this.$('.head').insertAdjacentHTML(
          'afterend',
          `<p class="test-mode" role="status">${esc(this.t.testMode)}</p>`,
        );
      }
      const [min, max] = this.partyRange();
      this.party = Math.min(Math.max(this.party, min), max);
      this.month = todayIn(business.timezone).slice(0, 7);
      this.show(this.getAttribute('manage') === null ? 'party' : 'manage', false);
    } catch (error) {
      this.t = await texts;
      if (generation === this.generation) this.fail(error);
    }
  }

  private $<E extends Element = HTMLElement>(selector: string) {
    return this.root.querySelector(selector) as E;
  }

  /** The venue's header: its logo beside its name, then what it says of itself and how to reach it. */
  private showVenue(business: Business) {
    if (business.logo_url) {
      this.$('.head').insertAdjacentHTML(
        'afterbegin',
        `<img class="logo" src="${esc(business.logo_url)}" alt="${esc(business.name)}" width="56" height="56">`,
      );
    }
    const contact = [
      business.address ? `<span>${esc(business.address)}</span>` : '',
      business.phone ? `<a href="${telHref(business.phone)}">${esc(business.phone)}</a>` : '',
      business.public_email
        ? `<a href="mailto:${esc(business.public_email)}">${esc(business.public_email)}</a>`
        : '',
      business.website
        ? `<a href="${esc(business.website)}" target="_blank" rel="noopener">${esc(new URL(business.website).host)}</a>`
        : '',
    ].filter(Boolean);
    this.$('.head').insertAdjacentHTML(
      'afterend',
      `<div class="venue">${business.description ? paragraph(business.description, 'about') : ''}${
        contact.length ? `<address>${contact.join('')}</address>` : ''
      }${
        business.booking_policy
          ? `<details><summary>${esc(this.t.policy)}</summary>${paragraph(business.booking_policy, 'policy')}</details>`
          : ''
      }</div>`,
    );
  }

  /** The party sizes offered: the business's online range, cut by the page's `party-max`. */
  private partyRange(): [number, number] {
    const min = this.business?.min_capacity ?? 1;
    // The public answer carries the business's online limit already worked out (onlinePartyLimit).
    const online = this.business?.max_online_party_size ?? PARTY_SIZE_MAX;
    const limit = Number(this.getAttribute('party-max')) || Number.POSITIVE_INFINITY;
    return [min, Math.max(min, Math.min(online, limit))];
  }

  /** A venue that seats more than book online tells larger groups how to reach it: its phone, as a tel: link. */
  private largerGroups(): string {
    const business = this.business;
    if (!business?.max_online_party_size || !business.max_capacity) return '';
    if (business.max_online_party_size >= business.max_capacity) return '';
    const reach = business.phone
      ? `${esc(this.t.larger)} <a href="${telHref(business.phone)}">${esc(business.phone)}</a>`
      : esc(this.t.largerContact);
    return `<p id="sw-larger" class="muted">${reach}</p>`;
  }

  /** Renders a step; `focus` moves the keyboard to its heading (not on the first render of a page). */
  private show(step: Step, focus = true) {
    this.step = step;
    if (step !== 'deposit') clearInterval(this.poll);
    this.$('#sw-alert').textContent = '';
    this.$('#sw-body').innerHTML = this.render();
    const number = STEP_NUMBER[step];
    const heading = this.$('#sw-body [tabindex="-1"]');
    this.$('#sw-live').textContent = [number ? fill(this.t.step, { n: number }) : '', heading?.textContent]
      .filter(Boolean)
      .join(': ');
    if (focus) heading?.focus();
  }

  /** A step's heading, focused when the step opens. */
  private stepHeading(text: string) {
    return `<h${this.level + 1} tabindex="-1">${esc(text)}</h${this.level + 1}>`;
  }

  /** A class's places left at a time, under the time; nothing for a time that is no class's. */
  private placesLeft(slot: Slot): string {
    const left = slot.seats_left;
    if (left === undefined) return '';
    const text =
      new Intl.PluralRules(this.language).select(left) === 'one' ? this.t.seatLeft : this.t.seatsLeft;
    return `<span class="left">${esc(fill(text, { n: left }))}</span>`;
  }

  /** A day's free times: under each service period's name when the day has periods, else one group. */
  private slotGroups(free: Slot[]): string {
    const buttons = (slots: Slot[]) =>
      slots
        .map(
          (slot) =>
            `<button type="button" data-act="slot" data-time="${slot.time}" aria-pressed="${slot.time === this.time}">${esc(slotTime(this.language, this.date, slot.time, this.hourCycle))}${this.placesLeft(slot)}</button>`,
        )
        .join('');
    if (!free.some((slot) => slot.period)) {
      return `<div class="slots" role="group" aria-label="${esc(this.t.time)}">${buttons(free)}</div>`;
    }
    // Slots come in time order, so each period's times are one run.
    const groups: { name: string; slots: Slot[] }[] = [];
    for (const slot of free) {
      const last = groups.at(-1);
      if (last && last.slots.at(-1)!.period?.id === slot.period?.id) last.slots.push(slot);
      else groups.push({ name: slot.period?.name ?? this.t.time, slots: [slot] });
    }
    const level = Math.min(this.level + 2, 6);
    return groups
      .map(
        (group, i) =>
          `<h${level} id="sw-period-${i}" class="period">${esc(group.name)}</h${level}><div class="slots" role="group" aria-labelledby="sw-period-${i}">${buttons(group.slots)}</div>`,
      )
      .join('');
  }

  private render(): string {
    const t = this.t;
    const back = `<button type="button" data-act="back">${esc(t.back)}</button>`;
    switch (this.step) {
      case 'party': {
        const [min, max] = this.partyRange();
        const options = Array.from({ length: max - min + 1 }, (_, i) => min + i)
          .map((n) => `<option${n === this.party ? ' selected' : ''}>${n}</option>`)
          .join('');
        const larger = this.largerGroups();
        return `${this.stepHeading(t.start)}<form data-form="party"><label for="sw-party">${esc(t.party)}</label><select id="sw-party" name="party"${larger ? ' aria-describedby="sw-larger"' : ''}>${options}</select>${larger}<div class="row"><button class="primary">${esc(t.next)}</button>${this.changing ? `<button type="button" data-act="managed">${esc(t.back)}</button>` : ''}</div></form>`;
      }
      case 'day':
        return `${this.stepHeading(t.day)}${this.calendar()}<div class="row">${back}</div>`;
      case 'time': {
        const free = this.slots.filter((slot) => slot.available);
        return `${this.stepHeading(t.time)}<p>${esc(dayLong(this.language, this.date))}</p><p class="muted">${esc(fill(t.zone, { tz: zoneName(this.language, this.business!.timezone) }))}</p>${
          free.length
            ? `${this.slotGroups(free)}<div class="row"><button type="button" class="primary" data-act="details"${this.time ? '' : ' disabled'}>${esc(this.changing ? t.changeTo : t.next)}</button>${back}</div>`
            : `<p>${esc(t.noTime)}</p><div class="row"><button type="button" data-act="waitlist">${esc(t.join)}</button>${back}</div>`
        }`;
      }
      case 'details': {
        const g = this.guest;
        return `${this.stepHeading(t.details)}<p>${esc(dayLong(this.language, this.date))}, ${esc(slotTime(this.language, this.date, this.time, this.hourCycle))} · ${esc(this.t.party)}: ${this.party}</p><form data-form="book">${field('first_name', t.first, 'text', 'given-name', g.first_name)}${field('last_name', t.last, 'text', 'family-name', g.last_name)}${field('email', t.email, 'email', 'email', g.email)}${field('phone', t.phone, 'tel', 'tel', g.phone)}<label for="sw-notes">${esc(t.notes)}</label><textarea id="sw-notes" name="customer_notes" rows="2">${esc(g.customer_notes)}</textarea><label class="consent"><input type="checkbox" name="marketing_opt_in" value="yes"${g.marketing_opt_in === 'yes' ? ' checked' : ''}> ${esc(fill(t.consent, { venue: this.business!.name }))}</label><div class="row"><button class="primary">${esc(t.book)}</button>${back}</div></form>`;
      }
      case 'waitlist': {
        const g = this.guest;
        return `${this.stepHeading(t.waitlist)}<p>${esc(dayLong(this.language, this.date))} · ${esc(this.t.party)}: ${this.party}</p><p>${esc(t.waitText)}</p><form data-form="wait">${field('first_name', t.first, 'text', 'given-name', g.first_name)}${field('last_name', t.last, 'text', 'family-name', g.last_name)}${field('phone', t.phone, 'tel', 'tel', g.phone)}${field('email', `${t.email} (${t.optional})`, 'email', 'email', g.email, false)}<div class="row"><button class="primary">${esc(t.join)}</button>${back}</div></form>`;
      }
      case 'deposit': {
        const booking = this.booking!;
        const business = this.business!;
        const total = booking.deposit?.amount_cents ?? 0;
        const perPerson = business.default_deposit_amount_cents ?? 0;
        // A charge is so much a guest; an authorisation hold is one fixed amount.
        const split =
          business.deposit_type === 'charge' && perPerson * booking.capacity === total
            ? `<p>${esc(fill(t.perPerson, { amount: money(this.language, perPerson), n: booking.capacity, total: money(this.language, total) }))}</p>`
            : '';
        const level = Math.min(this.level + 2, 6);
        const policy = business.booking_policy
          ? `<h${level} class="sub">${esc(t.policy)}</h${level}>${paragraph(business.booking_policy, 'policy')}`
          : '';
        return `${this.stepHeading(`${t.deposit}: ${money(this.language, total)}`)}<p>${esc(instantInZone(this.language, business.timezone, booking.starts_at, this.hourCycle))}</p>${split}<p>${esc(fill(t.depositText, { minutes: business.payment_hold_minutes ?? '' }))}</p>${policy}<div class="row"><a class="btn" href="${esc(this.paymentUrl(booking.payment_client_secret!))}" target="_blank" rel="noopener" data-act="pay">${esc(t.pay)}</a><button type="button" data-act="check">${esc(t.check)}</button></div>`;
      }
      case 'done': {
        const booking = this.booking!;
        // The venue emails a confirmation only once the booking is confirmed.
        const emailed =
          this.business!.guest_emails_enabled && booking.status === 'confirmed' && this.guest.email
            ? `<p>${esc(fill(t.emailed, { email: this.guest.email }))}</p>`
            : '';
        return `${this.stepHeading(t.done)}<p>${esc(instantInZone(this.language, this.business!.timezone, booking.starts_at, this.hourCycle))} · ${esc(this.t.party)}: ${booking.capacity}</p>${emailed}<p>${esc(t.code)}</p><p class="code">${esc(booking.confirmation_code)}</p><p><a href="${esc(this.manageUrl(booking.confirmation_code))}" target="_blank" rel="noopener">${esc(t.manage)}</a></p>${this.calendarLink(booking)}`;
      }
      case 'manage':
        return `${this.stepHeading(t.manage)}<form data-form="find">${field('code', t.code, 'text', 'off', this.getAttribute('manage') ?? '')}${field('contact', t.contact, 'text', 'email')}<div class="row"><button class="primary">${esc(t.find)}</button></div></form>`;
      case 'managed': {
        const booking = this.booking!;
        const cancelled = booking.status === 'cancelled';
        const actions = this.askingCancel
          ? `<p id="sw-ask">${esc(t.cancelAsk)}</p><div class="row" role="group" aria-labelledby="sw-ask"><button type="button" class="primary" data-act="cancel-yes">${esc(t.cancelYes)}</button><button type="button" data-act="cancel-no">${esc(t.cancelNo)}</button></div>`
          : `<div class="row">${booking.can_change ? `<button type="button" data-act="change">${esc(t.change)}</button>` : ''}${booking.can_cancel ? `<button type="button" data-act="cancel">${esc(t.cancel)}</button>` : ''}</div>${booking.can_change ? '' : `<p>${esc(t.changeClosed)}</p>`}`;
        return `${this.stepHeading(cancelled ? t.cancelled : t.manage)}${this.changedNow ? `<p class="done">${esc(t.changed)}</p>` : ''}<p>${esc(instantInZone(this.language, this.business!.timezone, booking.starts_at, this.hourCycle))} · ${esc(t.party)}: ${booking.capacity}</p><p>${esc(t.code)}</p><p class="code">${esc(booking.confirmation_code)}</p>${cancelled ? '' : actions}`;
      }
      case 'waitlisted':
        return `${this.stepHeading(fill(t.joined, { n: this.position }))}<p>${esc(dayLong(this.language, this.date))}</p>`;
    }
  }

  private calendar(): string {
    const t = this.t;
    const dates = datesOf(this.month);
    const firstWeekday = this.language === 'en' ? 0 : 1;
    const week = Array.from(
      { length: 7 },
      (_, i) => dates.find((d) => weekdayOf(d) === (firstWeekday + i) % 7)!,
    );
    const blanks = (weekdayOf(dates[0]!) - firstWeekday + 7) % 7;
    const cells = dates.map((date) => {
      const day = this.days.get(date);
      const full = day?.reason === 'fully_booked';
      const state = day?.available
        ? ''
        : full
          ? t.full
          : day?.note
            ? fill(t.closedFor, { note: day.note })
            : day?.reason === 'outside_booking_window'
              ? t.notOnline
              : t.closed;
      const label = `${dayLong(this.language, date)}${state ? `, ${state}` : ''}`;
      return `<button type="button" data-act="day" data-date="${date}" aria-label="${esc(label)}"${full ? ' class="full"' : ''}${day?.available || full ? '' : ' disabled'}>${Number(date.slice(8))}</button>`;
    });
    const thisMonth = todayIn(this.business!.timezone).slice(0, 7);
    // What the venue tells guests of its closed days, once per reason, under the month.
    const notes = [...new Set(dates.map((date) => this.days.get(date)?.note).filter(Boolean))]
      .map((note) => {
        const closed = dates.filter((date) => this.days.get(date)?.note === note);
        const [first, last] = [closed[0]!, closed.at(-1)!].map((date) => esc(dayShort(this.language, date)));
        return `<li>${first === last ? first : `${first} – ${last}`}: ${esc(note!)}</li>`;
      })
      .join('');
    return `<div class="nav"><button type="button" data-act="month" data-delta="-1" aria-label="${esc(t.prev)}"${this.month <= thisMonth ? ' disabled' : ''}>‹</button><strong id="sw-month">${esc(monthTitle(this.language, this.month))}</strong><button type="button" data-act="month" data-delta="1" aria-label="${esc(t.later)}">›</button></div><div class="cal" role="group" aria-labelledby="sw-month">${week.map((d) => `<span aria-hidden="true">${esc(weekdayShort(this.language, d))}</span>`).join('')}${'<span></span>'.repeat(blanks)}${cells.join('')}</div>${notes ? `<ul class="notes">${notes}</ul>` : ''}`;
  }

  /**
   * "Add to calendar": the booking's `.ics`, built here from what the widget already holds, as a
   * data: URL to download. A link to the API would have to carry the guest's email or phone in its
   * address (kept by history, logs and referrers); a data: URL has an opaque origin of its own and
   * nothing to revoke.
   */
  private calendarLink(booking: Booking): string {
    if (!booking.id || !booking.ends_at) return '';
    const business = this.business!;
    const ics = bookingCalendar({
      bookingId: booking.id,
      host: new URL(this.apiBase()).hostname,
      startsAt: booking.starts_at,
      endsAt: booking.ends_at,
      summary: `${business.name}, ${this.t.party}: ${booking.capacity}`,
      location: business.address,
      stamp: new Date(),
    });
    return `<p><a href="data:text/calendar;charset=utf-8,${encodeURIComponent(ics)}" download="booking-${esc(booking.confirmation_code)}.ics">${esc(this.t.calendar)}</a></p>`;
  }

  /** The simulated processor's test page for the secret; it confirms the payment, then the booking. */
  private paymentUrl(secret: string) {
    const kind = secret.startsWith('seti_') ? 'setup_intents' : 'payment_intents';
    const url = new URL(`/simulated-processor/${kind}/${secret.split('_secret_')[0]}`, this.apiBase());
    url.searchParams.set('client_secret', secret);
    return url.href;
  }

  /** The guest's page for the booking: the hosted page, on the API's own origin. */
  private manageUrl(code: string) {
    const url = new URL(`/book/${encodeURIComponent(this.business!.slug)}`, this.apiBase());
    url.searchParams.set('lang', this.language);
    url.searchParams.set('manage', code);
    return url.href;
  }

  private apiBase() {
    return this.getAttribute('api') ?? SCRIPT_ORIGIN;
  }

  private async loadMonth() {
    const [from, to] = [datesOf(this.month)[0]!, datesOf(this.month).at(-1)!];
    const answer = await this.api.days(this.business!.id, {
      from,
      to,
      capacity: this.party,
      service_id: this.service,
    });
    this.days = new Map(answer.days.map((day) => [day.date, day]));
  }

  private async loadSlots() {
    const answer = await this.api.slots(this.business!.id, {
      booking_date: this.date,
      capacity: this.party,
      service_id: this.service,
    });
    this.slots = answer.slots;
  }

  /** Runs a step's calls, with the step's buttons unusable meanwhile and failures shown. */
  private async busy(work: () => Promise<void>) {
    const body = this.$('#sw-body');
    body.setAttribute('aria-busy', 'true');
    for (const control of body.querySelectorAll<HTMLButtonElement>('button')) control.disabled = true;
    try {
      await work();
    } catch (error) {
      if (error instanceof ApiError && error.code === 'slot_unavailable') {
        this.time = '';
        await this.loadSlots().catch(() => {});
        this.show('time');
        this.$('#sw-alert').textContent = this.t.taken;
        return;
      }
      this.show(this.step);
      this.fail(error, this.messageFor(error));
    } finally {
      body.removeAttribute('aria-busy');
    }
  }

  /** The guest's booking moved to the party, date and time chosen, then shown as it is now. */
  private changeBooking() {
    return this.busy(async () => {
      this.booking = await this.api.changeGuestBooking(this.booking!.confirmation_code, this.contact!, {
        booking_date: this.date,
        start_time: this.time,
        capacity: this.party,
      });
      this.changing = false;
      this.changedNow = true;
      this.show('managed');
    });
  }

  /** What the guest is told: a wrong code or contact, a cut-off passed, or that it failed. */
  private messageFor(error: unknown) {
    if (!(error instanceof ApiError)) return this.t.failed;
    if (this.changing && error.code === 'deposit_would_change') return this.t.depositChange;
    if (this.changing && error.status === 409) return this.t.changeClosed;
    // A contact the API refuses as malformed (422) matches no booking either.
    if (this.step === 'manage' && (error.status === 404 || error.status === 422)) return this.t.unknown;
    if (this.step === 'managed' && (error.status === 409 || error.status === 422)) return this.t.tooLate;
    return this.t.failed;
  }

  /**
   * A refused key or origin (401, 403) is the site's set-up, not the guest's doing: the developer
   * reads the API's code and message in the console, the guest is not asked to try again.
   */
  private fail(error: unknown, message = this.t.failed) {
    const refused = error instanceof ApiError && (error.status === 401 || error.status === 403);
    if (refused) console.error(`slotwise: ${error.code}: ${error.message}`);
    this.$('#sw-alert').textContent = refused ? this.t.unavailable : message;
    const detail =
      error instanceof ApiError
        ? { status: error.status, code: error.code, message: error.message }
        : { status: 0, code: 'network_error', message: String((error as Error)?.message ?? error) };
    this.emit('slotwise:error', detail);
  }

  private emit(type: string, detail: object) {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
    // Framed (the hosted page in an iframe): the embedding page hears of it too, if it is one of the business's sites.
    if (window.parent !== window) {
      for (const origin of this.parentTargets()) window.parent.postMessage({ type, detail }, origin);
    }
  }

  /**
   * The origins to post to: the parent's, when it is one of `parent-origins`. A browser that does
   * not tell the parent's origin (no `ancestorOrigins`, no referrer) gets every listed origin as
   * a target, and delivers only to the one that is the parent's. Never `*`.
   */
  private parentTargets(): string[] {
    const listed = (this.getAttribute('parent-origins') ?? '').split(/\s+/).filter(Boolean);
    const ancestors = (location as { ancestorOrigins?: DOMStringList }).ancestorOrigins;
    if (ancestors && ancestors.length > 0) {
      const parent = ancestors[0]!;
      return listed.includes(parent) ? [parent] : [];
    }
    const referrer = document.referrer ? new URL(document.referrer).origin : undefined;
    if (referrer && listed.includes(referrer)) return [referrer];
    return listed;
  }

  private onClick(event: Event) {
    const target = (event.target as Element).closest<HTMLElement>('[data-act]');
    if (!target) return;
    this.changedNow = false;
    const { act, date, time, delta } = target.dataset;
    switch (act) {
      case 'back':
        return this.show(
          ({ day: 'party', time: 'day', details: 'time', waitlist: 'day' } as const)[this.step as 'day'],
        );
      case 'month':
        return void this.busy(async () => {
          this.month = addMonths(this.month, Number(delta));
          await this.loadMonth();
          this.show('day', false);
          this.$<HTMLButtonElement>(`[data-delta="${delta}"]`).focus();
        });
      case 'day':
        this.date = date!;
        this.time = '';
        if (this.days.get(date!)?.reason === 'fully_booked') return this.show('waitlist');
        return void this.busy(async () => {
          await this.loadSlots();
          this.show('time');
        });
      case 'slot':
        this.time = time!;
        for (const button of this.root.querySelectorAll('[data-act=slot]')) {
          button.setAttribute('aria-pressed', String(button === target));
        }
        this.$<HTMLButtonElement>('[data-act=details]').disabled = false;
        return;
      case 'details':
        if (this.changing) return void this.changeBooking();
        return this.show('details');
      case 'waitlist':
        return this.show('waitlist');
      case 'pay':
        clearInterval(this.poll);
        this.poll = setInterval(() => void this.checkPayment(false), PAYMENT_POLL_MS);
        return;
      case 'check':
        return void this.checkPayment(true);
      case 'cancel':
      case 'cancel-no':
        this.askingCancel = act === 'cancel';
        this.show('managed', false);
        return this.$<HTMLButtonElement>(
          act === 'cancel' ? '[data-act=cancel-no]' : '[data-act=cancel]',
        )?.focus();
      case 'cancel-yes':
        return void this.busy(async () => {
          this.booking = await this.api.cancelGuestBooking(this.booking!.confirmation_code, this.contact!);
          this.askingCancel = false;
          this.show('managed');
        });
      case 'change': {
        const booking = this.booking!;
        this.changing = true;
        this.party = booking.capacity;
        this.date = booking.booking_date;
        this.month = booking.booking_date.slice(0, 7);
        this.time = '';
        return this.show('party');
      }
      case 'managed':
        this.changing = false;
        return this.show('managed');
    }
  }

  private onSubmit(event: Event) {
    event.preventDefault();
    const target = event.target as HTMLFormElement;
    const values = form(new FormData(target));
    if (target.dataset.form === 'party') {
      this.party = Number(values.party);
      return void this.busy(async () => {
        await this.loadMonth();
        this.show('day');
      });
    }
    if (target.dataset.form === 'find') {
      const contact = values.contact!;
      this.contact = contact.includes('@') ? { email: contact } : { phone: contact };
      return void this.busy(async () => {
        this.booking = await this.api.guestBooking(values.code!.toUpperCase(), this.contact!);
        this.show('managed');
      });
    }
    // An unticked box sends nothing: the consent is what this form says, never an earlier tick.
    this.guest = { ...this.guest, ...values, marketing_opt_in: values.marketing_opt_in ?? '' };
    const business = this.business!;
    if (target.dataset.form === 'wait') {
      return void this.busy(async () => {
        const { position } = await this.api.joinWaitlist(business.id, {
          first_name: values.first_name!,
          last_name: values.last_name!,
          phone: values.phone!,
          ...(values.email ? { email: values.email } : {}),
          preferred_date: this.date,
          capacity: this.party,
          service_id: this.service,
        });
        this.position = position;
        this.show('waitlisted');
      });
    }
    return void this.busy(async () => {
      const { booking } = await this.api.book({
        business_id: business.id,
        booking_date: this.date,
        start_time: this.time,
        capacity: this.party,
        service_id: this.service,
        first_name: values.first_name!,
        last_name: values.last_name!,
        email: values.email!,
        phone: values.phone!,
        customer_notes: values.customer_notes || null,
        marketing_opt_in: values.marketing_opt_in === 'yes',
      });
      this.booking = booking;
      if (booking.payment_client_secret) return this.show('deposit');
      this.confirmed(booking);
    });
  }

  private confirmed(booking: Booking) {
    this.booking = { ...this.booking!, ...booking };
    this.show('done');
    const { confirmation_code, status, booking_date, start_time, capacity, starts_at } = this.booking;
    this.emit('slotwise:booked', {
      confirmation_code,
      status,
      booking_date,
      start_time,
      capacity,
      starts_at,
    });
  }

  /** Asks for the booking's status as its guest; `told` says so when the payment has not arrived. */
  private async checkPayment(told: boolean) {
    const booking = this.booking!;
    try {
      const seen = await this.api.guestBooking(booking.confirmation_code, { email: this.guest.email! });
      if (this.step !== 'deposit') return;
      if (seen.status === 'confirmed') return this.confirmed(seen);
      if (told) this.$('#sw-alert').textContent = this.t.unpaid;
    } catch (error) {
      if (told) this.fail(error);
    }
  }
}

if (!customElements.get('slotwise-booking')) customElements.define('slotwise-booking', SlotwiseBooking);
