/**
 * Hash routing: `#/<screen>/<param>/...`, e.g. `#/today/2026-11-27`. The hash keeps every place
 * of the dashboard a link the browser's back button and bookmarks know, with one HTML page.
 */
import { signal } from '@preact/signals';

export interface Route {
  screen: string;
  params: string[];
}

function parse(hash: string): Route {
  const [screen = '', ...params] = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  return { screen, params };
}

export const route = signal<Route>(parse(location.hash));

addEventListener('hashchange', () => {
  route.value = parse(location.hash);
});

export const hrefOf = (screen: string, ...params: string[]) =>
  `#/${[screen, ...params].map(encodeURIComponent).join('/')}`;

export function go(screen: string, ...params: string[]): void {
  location.hash = hrefOf(screen, ...params);
}

/** What every screen is given: its route's parameters after the screen's name (`#/today/<date>`). */
export interface ScreenProps {
  params: string[];
}
