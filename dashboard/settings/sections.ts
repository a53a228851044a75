/**
 * The settings screen's sections, in the order of its sub-navigation, each a chunk of its own
 * loaded when first shown. `owner` sections use routes of the `admin` scope, which a staff
 * member's token lacks: they are not offered to staff at all.
 */
import type { ComponentType } from 'preact';
import type { TextKey } from '../i18n.ts';

export interface Section {
  id: string;
  label: TextKey;
  owner?: boolean;
  load: () => Promise<{ default: ComponentType }>;
}

export const SECTIONS: Section[] = [
  { id: 'profile', label: 'settingsProfile', load: () => import('./profile.tsx') },
  { id: 'hours', label: 'settingsHours', load: () => import('./hours.tsx') },
  { id: 'rules', label: 'settingsRules', load: () => import('./rules.tsx') },
  { id: 'periods', label: 'settingsPeriods', load: () => import('./periods.tsx') },
  { id: 'tables', label: 'settingsTables', load: () => import('./tables.tsx') },
  { id: 'combinations', label: 'settingsCombinations', load: () => import('./combinations.tsx') },
  { id: 'services', label: 'settingsServices', load: () => import('./services.tsx') },
  { id: 'blackouts', label: 'settingsBlackouts', load: () => import('./blackouts.tsx') },
  { id: 'messages', label: 'settingsMessages', load: () => import('./messages.tsx') },
  { id: 'deposits', label: 'settingsDeposits', load: () => import('./deposits.tsx') },
  { id: 'keys', label: 'settingsKeys', owner: true, load: () => import('./api-keys.tsx') },
  { id: 'staff', label: 'settingsStaff', owner: true, load: () => import('./staff.tsx') },
  { id: 'webhooks', label: 'settingsWebhooks', owner: true, load: () => import('./webhooks.tsx') },
  { id: 'partners', label: 'settingsPartners', owner: true, load: () => import('./partners.tsx') },
  { id: 'plan', label: 'settingsPlan', load: () => import('./plan.tsx') },
];
