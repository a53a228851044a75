import { useState } from 'preact/hooks';
import { LANGUAGE_NAMES, switchLanguage, t } from '../i18n.ts';
import { venue } from '../venue.ts';
import { Check, Choice, Field, orNull, SettingsForm, text, useSaving } from './form.tsx';
import { patchSettings, type Settings, useSettings } from './settings-data.ts';

const SHOWN = [
  'notification_language',
  'guest_emails_enabled',
  'sms_enabled',
  'reminder_hours_before',
  'venue_notification_email',
  'waitlist_offer_minutes',
];

/** How the venue tells its guests and itself: the language, emails, SMS, reminders, waitlist offers. */
export default function Messages() {
  const settings = useSettings();
  if (!settings) return <p role="status">{t('loading')}</p>;
  return <MessagesForm settings={settings} />;
}

function MessagesForm({ settings }: { settings: Settings }) {
  const saving = useSaving();
  const [language, setLanguage] = useState(settings.notification_language);
  const [emails, setEmails] = useState(settings.guest_emails_enabled);
  const [sms, setSms] = useState(settings.sms_enabled);
  const [reminder, setReminder] = useState(text(settings.reminder_hours_before));
  const [venueEmail, setVenueEmail] = useState(text(settings.venue_notification_email));
  const [offerMinutes, setOfferMinutes] = useState(text(settings.waitlist_offer_minutes));
  const { errors } = saving;
  const save = async () => {
    const saved = await saving.submit(() =>
      patchSettings({
        notification_language: language,
        guest_emails_enabled: emails,
        sms_enabled: sms,
        reminder_hours_before: Number(reminder),
        venue_notification_email: orNull(venueEmail),
        waitlist_offer_minutes: Number(offerMinutes),
      }),
    );
    // The dashboard speaks the venue's language (docs/dashboard.md): it follows the change.
    if (saved && venue.value && saved.notification_language !== venue.value.language) {
      venue.value = { ...venue.value, language: saved.notification_language };
      await switchLanguage(saved.notification_language);
    }
  };
  return (
    <SettingsForm saving={saving} onSave={save} shown={(field) => SHOWN.includes(field)}>
      <Choice
        field="notification_language"
        label={t('settingsLanguage')}
        errors={errors}
        value={language}
        onValue={(value) => setLanguage(value as Settings['notification_language'])}
        options={Object.entries(LANGUAGE_NAMES).map(([value, label]) => ({ value, label }))}
      />
      <Check
        field="guest_emails_enabled"
        label={t('settingsGuestEmails')}
        errors={errors}
        checked={emails}
        onChecked={setEmails}
      />
      <Check field="sms_enabled" label={t('settingsSms')} errors={errors} checked={sms} onChecked={setSms} />
      <Field
        field="reminder_hours_before"
        label={t('settingsReminder')}
        hint={t('settingsReminderHint')}
        errors={errors}
        value={reminder}
        onValue={setReminder}
        type="number"
        min={0}
        max={168}
      />
      <Field
        field="venue_notification_email"
        label={t('settingsVenueEmail')}
        hint={t('settingsVenueEmailHint')}
        errors={errors}
        value={venueEmail}
        onValue={setVenueEmail}
        type="email"
        maxLength={254}
      />
      <Field
        field="waitlist_offer_minutes"
        label={t('settingsOfferMinutes')}
        errors={errors}
        value={offerMinutes}
        onValue={setOfferMinutes}
        type="number"
        min={5}
        max={1440}
      />
    </SettingsForm>
  );
}
