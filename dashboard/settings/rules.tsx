import { useState } from 'preact/hooks';
import { PARTY_SIZE_MAX } from '../../src/engine/party.ts';
import { type TextKey, t } from '../i18n.ts';
import {
  Check,
  Choice,
  CountryField,
  Field,
  numberOrNull,
  orNull,
  SettingsForm,
  TimezoneChoice,
  text,
  useSaving,
} from './form.tsx';
import { patchSettings, type Settings, type SettingsChange, useSettings } from './settings-data.ts';

/** A whole-number setting: its label and hint, and the bounds the API takes (it judges them again). */
interface NumberRule {
  field: keyof Settings & keyof SettingsChange;
  label: TextKey;
  hint?: TextKey;
  min: number;
  max: number;
  /** Blank sends null: the setting then follows its default (a hint says which). */
  blank?: true;
}

const NUMBERS: NumberRule[] = [
  { field: 'default_slot_interval_minutes', label: 'rulesInterval', min: 15, max: 120 },
  { field: 'default_slot_duration_minutes', label: 'rulesDuration', min: 15, max: 360 },
  { field: 'booking_window_days', label: 'rulesWindow', min: 1, max: 365 },
  { field: 'min_notice_hours', label: 'rulesNotice', min: 0, max: 168 },
  { field: 'buffer_minutes', label: 'rulesBuffer', min: 0, max: 240 },
  { field: 'min_capacity', label: 'rulesMinParty', min: 1, max: 20 },
  { field: 'max_capacity', label: 'rulesMaxParty', min: 1, max: PARTY_SIZE_MAX },
  {
    field: 'max_online_party_size',
    label: 'rulesOnlineParty',
    hint: 'rulesOnlinePartyHint',
    min: 1,
    max: PARTY_SIZE_MAX,
    blank: true,
  },
  {
    field: 'cancellation_cutoff_hours',
    label: 'rulesCancelCutoff',
    hint: 'rulesCutoffHint',
    min: 0,
    max: 720,
  },
  {
    field: 'guest_change_cutoff_hours',
    label: 'rulesChangeCutoff',
    hint: 'rulesCutoffHint',
    min: 0,
    max: 720,
  },
  { field: 'public_bookings_per_ip_per_hour', label: 'rulesPerVisitor', min: 1, max: 1000 },
  {
    field: 'guest_data_retention_months',
    label: 'rulesRetention',
    hint: 'rulesRetentionHint',
    min: 1,
    max: 120,
    blank: true,
  },
];

const SHOWN = [
  'timezone',
  'country',
  'time_format',
  'auto_confirm_bookings',
  ...NUMBERS.map((rule) => rule.field),
];

/** When and how guests book: the venue's zone, the times offered, party sizes, and the guests' own cut-offs. */
export default function Rules() {
  const settings = useSettings();
  if (!settings) return <p role="status">{t('loading')}</p>;
  return <RulesForm settings={settings} />;
}

function RulesForm({ settings }: { settings: Settings }) {
  const saving = useSaving();
  const [timezone, setTimezone] = useState(settings.timezone);
  const [country, setCountry] = useState(text(settings.country));
  const [timeFormat, setTimeFormat] = useState(text(settings.time_format));
  const [autoConfirm, setAutoConfirm] = useState(settings.auto_confirm_bookings);
  const [numbers, setNumbers] = useState<Record<string, string>>(() =>
    Object.fromEntries(NUMBERS.map((rule) => [rule.field, text(settings[rule.field] as number | null)])),
  );
  const save = () =>
    saving.submit(() =>
      patchSettings({
        timezone,
        country: orNull(country),
        time_format: timeFormat === '24h' || timeFormat === '12h' ? timeFormat : null,
        auto_confirm_bookings: autoConfirm,
        ...Object.fromEntries(
          NUMBERS.map((rule) => {
            const typed = numbers[rule.field]!;
            return [rule.field, rule.blank ? numberOrNull(typed) : Number(typed)];
          }),
        ),
      }),
    );
  return (
    <SettingsForm saving={saving} onSave={save} shown={(field) => SHOWN.includes(field)}>
      <div class="fields">
        <TimezoneChoice errors={saving.errors} value={timezone} onValue={setTimezone} />
        <CountryField errors={saving.errors} value={country} onValue={setCountry} />
        <Choice
          field="time_format"
          label={t('rulesTimeFormat')}
          errors={saving.errors}
          value={timeFormat}
          onValue={setTimeFormat}
          options={[
            { value: '', label: t('rulesTimeFormatLanguage') },
            { value: '24h', label: t('rulesTimeFormat24') },
            { value: '12h', label: t('rulesTimeFormat12') },
          ]}
        />
        {NUMBERS.map((rule) => (
          <Field
            key={rule.field}
            field={rule.field}
            label={t(rule.label)}
            hint={rule.hint && t(rule.hint)}
            errors={saving.errors}
            value={numbers[rule.field]!}
            onValue={(value) => setNumbers((now) => ({ ...now, [rule.field]: value }))}
            type="number"
            min={rule.min}
            max={rule.max}
            inputMode="numeric"
          />
        ))}
      </div>
      <Check
        field="auto_confirm_bookings"
        label={t('rulesAutoConfirm')}
        errors={saving.errors}
        checked={autoConfirm}
        onChecked={setAutoConfirm}
      />
    </SettingsForm>
  );
}
