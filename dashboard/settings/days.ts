import { language } from '../i18n.ts';

/** The week as a venue reads it, Monday first; the API numbers days 0 = Sunday ... 6 = Saturday. */
export const WEEK = [1, 2, 3, 4, 5, 6, 0];

/** A weekday's name in the dashboard's language (1 January 2023 was a Sunday). */
export const dayName = (day: number, width: 'long' | 'short' = 'long') =>
  new Intl.DateTimeFormat(language.value, { weekday: width, timeZone: 'UTC' }).format(
    Date.UTC(2023, 0, 1 + day),
  );
