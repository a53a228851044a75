import { formatMinutes } from './time.ts';

/** How a venue's clock reads: set by the venue, or its language's. */
export const TIME_FORMATS = ['24h', '12h'] as const;
export type TimeFormat = (typeof TIME_FORMATS)[number];

/**
 * The `hourCycle` of a venue's times: its `time_format` when set, else its language's clock:
 * 12-hour for English, 24-hour for German, French, Dutch and Spanish.
 */
export const hourCycleOf = (language: string, timeFormat: TimeFormat | null | undefined): HourCycle =>
  (timeFormat ?? (language.toLowerCase().startsWith('en') ? '12h' : '24h')) === '12h' ? 'h12' : 'h23';

export type HourCycle = 'h12' | 'h23';

/**
 * How a time of day reads on a clock, as fields of `Intl.DateTimeFormat`: on a 12-hour clock the
 * hour without a leading zero in every language (German's and French's own patterns pad it:
 * "07:30 PM"), on a 24-hour one in two digits ("09:05"); undefined: the language's own clock.
 */
export const clockFields = (hourCycle?: HourCycle): Intl.DateTimeFormatOptions => ({
  hour: hourCycle === 'h23' ? '2-digit' : 'numeric',
  minute: '2-digit',
  hourCycle,
});

const TYPED_TIME = /^(\d{1,2})(?:\s*[:.h]?\s*(\d{2})|\s*h)?(?:\s*([ap])\.?\s*m?\.?)?$/;

/**
 * A time as a person types it, on either clock and in any of the dashboard's languages ("19:30",
 * "1930", "19 h 30", "7:30 PM", "7pm", "7:30 p. m."), as `HH:MM`; null when it names no time of day.
 */
export function readTime(text: string): string | null {
  const match = TYPED_TIME.exec(text.trim().toLowerCase());
  if (!match) return null;
  let hour = Number(match[1]);
  const minute = Number(match[2] ?? 0);
  const half = match[3];
  if (minute > 59) return null;
  if (half) {
    if (hour < 1 || hour > 12) return null;
    hour = (hour % 12) + (half === 'p' ? 12 : 0);
  } else if (hour > 23) {
    return null;
  }
  return formatMinutes(hour * 60 + minute);
}
