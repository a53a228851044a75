/** The business's settings (`/v1/manage/settings`), shared by the profile, messages and deposits sections. */
import type { operations } from '@slotwise/sdk';
import { useState } from 'preact/hooks';
import { call } from '../api.ts';
import { versionOf } from '../changes.ts';
import { useLatest } from '../latest.ts';

export type Settings = operations['getSettings']['responses'][200]['content']['application/json'];
export type SettingsChange = NonNullable<
  operations['updateSettings']['requestBody']
>['content']['application/json'];

export const patchSettings = (body: SettingsChange) =>
  call((api) => api.PATCH('/v1/manage/settings', { body }));

/** The settings as saved, loaded again after any change. */
export function useSettings(): Settings | null {
  const [settings, setSettings] = useState<Settings | null>(null);
  const version = versionOf('settings');
  useLatest(() => call((api) => api.GET('/v1/manage/settings')), setSettings, [version]);
  return settings;
}
