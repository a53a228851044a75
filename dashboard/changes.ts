/**
 * The one place a screen is told that the business's data changed (by this dashboard's own
 * actions, or by live updates from the server): screens read `changed` in their loading effect,
 * so bumping it loads them again.
 */
import { signal } from '@preact/signals';

export const changed = signal(0);

export function dataChanged(): void {
  changed.value++;
}
