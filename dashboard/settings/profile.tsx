import { useState } from 'preact/hooks';
import { PARTY_SIZE_MAX } from '../../src/engine/party.ts';
import { t } from '../i18n.ts';
import { venue } from '../venue.ts';
import { Field, numberOrNull, orNull, SettingsForm, TextArea, text, useSaving } from './form.tsx';
import { patchSettings, type Settings, useSettings } from './settings-data.ts';

const FIELDS = [
  'description',
  'address',
  'phone',
  'public_email',
  'website',
  'logo_url',
  'booking_policy',
  'max_online_party_size',
] as const;
type ProfileField = (typeof FIELDS)[number];

/** What guests see of the venue on its booking page and in `GET /v1/public/business/{slug}`. */
export default function Profile() {
  const settings = useSettings();
  if (!settings) return <p role="status">{t('loading')}</p>;
  return <ProfileForm settings={settings} />;
}

function ProfileForm({ settings }: { settings: Settings }) {
  const saving = useSaving();
  const [values, setValues] = useState(
    () =>
      Object.fromEntries(FIELDS.map((field) => [field, text(settings[field])])) as Record<
        ProfileField,
        string
      >,
  );
  const bind = (field: ProfileField) => ({
    field,
    errors: saving.errors,
    value: values[field],
    onValue: (value: string) => setValues((all) => ({ ...all, [field]: value })),
  });
  const save = () =>
    saving.submit(() =>
      patchSettings({
        description: orNull(values.description),
        address: orNull(values.address),
        phone: orNull(values.phone),
        public_email: orNull(values.public_email),
        website: orNull(values.website),
        logo_url: orNull(values.logo_url),
        booking_policy: orNull(values.booking_policy),
        max_online_party_size: numberOrNull(values.max_online_party_size),
      }),
    );
  return (
    <SettingsForm saving={saving} onSave={save} shown={(field) => FIELDS.includes(field as ProfileField)}>
      <p class="field">
        <span class="label">{t('settingsBusinessName')}</span> <strong>{venue.value?.name}</strong>
      </p>
      <TextArea {...bind('description')} label={t('settingsDescription')} maxLength={2000} />
      <Field
        {...bind('address')}
        label={t('settingsAddress')}
        maxLength={300}
        autoComplete="street-address"
      />
      <Field {...bind('phone')} label={t('phone')} type="tel" autoComplete="tel" />
      <Field {...bind('public_email')} label={t('settingsPublicEmail')} type="email" maxLength={254} />
      <Field {...bind('website')} label={t('settingsWebsite')} type="url" placeholder="https://" />
      <Field {...bind('logo_url')} label={t('settingsLogo')} type="url" placeholder="https://" />
      <TextArea {...bind('booking_policy')} label={t('settingsPolicy')} maxLength={2000} />
      <Field
        {...bind('max_online_party_size')}
        label={t('settingsMaxOnline')}
        hint={t('settingsMaxOnlineHint', { max: settings.max_capacity })}
        type="number"
        min={1}
        max={PARTY_SIZE_MAX}
      />
    </SettingsForm>
  );
}
