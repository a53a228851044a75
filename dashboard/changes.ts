/**
 * Where a screen is told that the business's data changed (by this dashboard's own actions, or
 * by live updates from the server), by kind of data: a screen reads the versions of the kinds it
 * shows in its loading effect (`versionOf`), so a change of those loads it again and a change of
 * others does not (a booking made elsewhere reloads Today, not the settings being edited).
 */
import { type Signal, signal } from '@preact/signals';

/**
 * `bookings`: bookings, their deposits and the blocks of the day plan (a customer's counts and the
 * statistics follow them); `waitlist`: its entries; `walkIns`: the walk-in queue; `settings`:
 * everything the venue configures.
 */
export type DataKind = 'bookings' | 'waitlist' | 'walkIns' | 'settings';

const versions: Record<DataKind, Signal<number>> = {
  bookings: signal(0),
  waitlist: signal(0),
  walkIns: signal(0),
  settings: signal(0),
};

/** The version of what `kinds` name, read so that the calling component follows their changes. */
export const versionOf = (...kinds: DataKind[]): string =>
  kinds.map((kind) => versions[kind].value).join('.');

/** Says that data of `kinds` changed; without a kind, any data may have (the screens load again). */
export function dataChanged(...kinds: DataKind[]): void {
  for (const kind of kinds.length ? kinds : (Object.keys(versions) as DataKind[])) versions[kind].value++;
}

/** The kind of data a live event of the stream (`booking.created`, `block.updated`...) changed. */
export const kindOfEvent = (type: string): DataKind =>
  type.startsWith('waitlist.') ? 'waitlist' : type.startsWith('walk_in.') ? 'walkIns' : 'bookings';
