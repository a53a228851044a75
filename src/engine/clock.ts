/** How a venue's clock reads: set by the venue, or its language's. */
export const TIME_FORMATS = ['24h', '12h'] as const;
export type TimeFormat = (typeof TIME_FORMATS)[number];

/**
 * The `hourCycle` of a venue's times: its `time_format` when set, else its language's clock:
 * 12-hour for English, 24-hour for German, French, Dutch and Spanish.
 */
export const hourCycleOf = (language: string, timeFormat: TimeFormat | null | undefined): 'h12' | 'h23' =>
  (timeFormat ?? (language.toLowerCase().startsWith('en') ? '12h' : '24h')) === '12h' ? 'h12' : 'h23';
