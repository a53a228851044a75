import { useState } from 'preact/hooks';
import { createBusiness } from './api.ts';
import { LANGUAGE_NAMES, LANGUAGES, pickLanguage, switchLanguage, t } from './i18n.ts';
import { go } from './router.ts';
import { Choice, CountryField, Field, SettingsForm, TimezoneChoice, useSaving } from './settings/form.tsx';
import { patchSettings, type SettingsChange } from './settings/settings-data.ts';
import { loadVenue } from './venue.ts';

/** A developer without a venue makes the first one: its name, time zone, country and language. */
export function CreateVenue() {
  const saving = useSaving();
  const [venue, setVenue] = useState({
    name: '',
    timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    country: '',
    language: pickLanguage(navigator.language),
  });
  const set = (field: keyof typeof venue) => (value: string) => setVenue({ ...venue, [field]: value });
  async function create() {
    const created = await saving.submit(async () => {
      const businessId = await createBusiness(venue.name.trim());
      await patchSettings({
        timezone: venue.timezone,
        notification_language: venue.language as SettingsChange['notification_language'],
        ...(venue.country.trim() ? { country: venue.country.trim().toUpperCase() } : {}),
      });
      return businessId;
    }, '');
    if (!created) return;
    await loadVenue(created);
    await switchLanguage(venue.language);
    go('setup');
  }
  return (
    <div class="create-venue">
      <h1>{t('createVenueTitle')}</h1>
      <p>{t('createVenueIntro')}</p>
      <SettingsForm
        saving={saving}
        onSave={() => void create()}
        saveLabel={t('createVenue')}
        shown={() => true}
      >
        <Field
          field="name"
          label={t('settingsBusinessName')}
          errors={saving.errors}
          value={venue.name}
          onValue={set('name')}
          maxLength={200}
          required
        />
        <TimezoneChoice errors={saving.errors} value={venue.timezone} onValue={set('timezone')} />
        <CountryField errors={saving.errors} value={venue.country} onValue={set('country')} />
        <Choice
          field="notification_language"
          label={t('settingsLanguage')}
          errors={saving.errors}
          value={venue.language}
          onValue={set('language')}
          options={LANGUAGES.map((code) => ({ value: code, label: LANGUAGE_NAMES[code]! }))}
        />
      </SettingsForm>
    </div>
  );
}
