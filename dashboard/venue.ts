/**
 * The business the session acts on, as the screens need it: its name, slug, time zone and language.
 * Loaded again whenever the session changes business.
 */
import { computed, signal } from '@preact/signals';
import { hourCycleOf, type TimeFormat } from '../src/engine/clock.ts';
import { formatMinutes } from '../src/engine/time.ts';
import { clockOf, timeOn } from '../widget/format.ts';
import { call } from './api.ts';
import { language } from './i18n.ts';

export interface Venue {
  id: string;
  name: string;
  /** Where its booking page is: `/book/{slug}`. */
  slug: string;
  timezone: string;
  /** The language the venue's messages are written in, when its settings say. */
  language: string | null;
  /** How its times read; null: the language's clock. */
  timeFormat: TimeFormat | null;
}

/** The hour cycle the dashboard writes the venue's times in. */
export const venueHourCycle = () => hourCycleOf(language.value, venue.value?.timeFormat);

export const venue = signal<Venue | null>(null);

// One formatter while the language and the clock stay: Today formats a time per booking.
const venueClock = computed(() => clockOf(language.value, venueHourCycle()));

/** A wall time `HH:MM` as the venue's clock reads in the dashboard's language: "20:00", "8:00 PM". */
export const venueTime = (time: string) => timeOn(venueClock.value, time);

/** Minutes from a day's midnight (past 24:00 for a night's end) as the venue's clock reads. */
export const venueMinutes = (minutes: number) => venueTime(formatMinutes(minutes));

export async function loadVenue(businessId: string): Promise<Venue> {
  const [business, settings] = await Promise.all([
    call((api) => api.GET('/v1/manage/business')),
    call((api) => api.GET('/v1/manage/settings')),
  ]);
  const loaded = {
    id: businessId,
    name: business.name,
    slug: business.slug,
    timezone: settings.timezone,
    language: settings.notification_language,
    timeFormat: settings.time_format,
  };
  venue.value = loaded;
  return loaded;
}
