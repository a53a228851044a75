/**
 * The dashboard's screens, in the order of the navigation. A screen is added here and nowhere
 * else: its route name, its label's text key, and its module, loaded (a chunk of its own) when
 * first shown. The first one is where the dashboard opens.
 */
import { computed } from '@preact/signals';
import type { ComponentType } from 'preact';
import type { TextKey } from './i18n.ts';
import { route, type ScreenProps } from './router.ts';

export interface Screen {
  id: string;
  label: TextKey;
  /** A screen reached by its route only, not offered in the navigation (the set-up). */
  hidden?: boolean;
  load: () => Promise<{ default: ComponentType<ScreenProps> }>;
}

export const SCREENS: Screen[] = [
  { id: 'today', label: 'navToday', load: () => import('./today/today-screen.tsx') },
  { id: 'queue', label: 'navQueue', load: () => import('./walk-ins/queue-screen.tsx') },
  { id: 'waitlist', label: 'navWaitlist', load: () => import('./waitlist/waitlist-screen.tsx') },
  { id: 'customers', label: 'navCustomers', load: () => import('./customers/customers-screen.tsx') },
  { id: 'settings', label: 'navSettings', load: () => import('./settings/settings-screen.tsx') },
  { id: 'stats', label: 'navStats', load: () => import('./stats/stats-screen.tsx') },
  { id: 'setup', label: 'navSetup', hidden: true, load: () => import('./setup/setup-screen.tsx') },
];

/** The screen shown: the one the route names, else the first. */
export const currentScreen = computed(
  () => SCREENS.find((screen) => screen.id === route.value.screen) ?? SCREENS[0]!,
);
