/** How a booking's status shows wherever the dashboard names one: a word, and an icon beside its colour. */
import { type TextKey, t } from './i18n.ts';

/** A cue beside the status colour, so that the colour is never the only sign. */
export const STATUS_ICON: Record<string, string> = {
  pending: '?',
  confirmed: '✓',
  checked_in: '●',
  completed: '✔',
  no_show: '✕',
  cancelled: '–',
};

export const statusText = (status: string) => t(`status_${status}` as TextKey);
