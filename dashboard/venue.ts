/**
 * The business the session acts on, as the screens need it: its name, slug, time zone and language.
 * Loaded again whenever the session changes business.
 */
import { signal } from '@preact/signals';
import { hourCycleOf, type TimeFormat } from '../src/engine/clock.ts';
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
