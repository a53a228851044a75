import type { operations } from '@slotwise/sdk';
import { useEffect, useState } from 'preact/hooks';
import { call } from '../api.ts';
import { versionOf } from '../changes.ts';
import { t } from '../i18n.ts';
import { report } from '../problems.ts';
import { dayName, WEEK } from './days.ts';
import {
  Field,
  fieldId,
  mayChange,
  numberOrNull,
  orNull,
  type Saving,
  SettingsForm,
  text,
  useSaving,
} from './form.tsx';

type Period = operations['getServicePeriods']['responses'][200]['content']['application/json'][number];
type PeriodBody = NonNullable<
  operations['replaceServicePeriods']['requestBody']
>['content']['application/json'];
type PeriodInput = Extract<PeriodBody, { periods: unknown }>['periods'][number];

/** A period as edited: times and numbers as typed; what the form does not show is kept as it was. */
interface Draft {
  key: string;
  id?: string;
  name: string;
  days_of_week: number[];
  start_time: string;
  end_time: string;
  last_start_time: string;
  slot_interval_minutes: string;
  max_covers_per_slot: string;
  max_bookings_per_slot: string;
  turn_times: Period['turn_times'];
  resource_ids: string[];
}

const draftOf = (period: Period): Draft => ({
  key: period.id,
  id: period.id,
  name: period.name,
  days_of_week: period.days_of_week,
  start_time: period.start_time,
  end_time: period.end_time,
  last_start_time: text(period.last_start_time),
  slot_interval_minutes: text(period.slot_interval_minutes),
  max_covers_per_slot: text(period.max_covers_per_slot),
  max_bookings_per_slot: text(period.max_bookings_per_slot),
  turn_times: period.turn_times,
  resource_ids: period.resource_ids,
});

let drafted = 0;
const blank = (): Draft => ({
  key: `new-${++drafted}`,
  name: '',
  days_of_week: [...WEEK],
  start_time: '',
  end_time: '',
  last_start_time: '',
  slot_interval_minutes: '',
  max_covers_per_slot: '',
  max_bookings_per_slot: '',
  turn_times: null,
  resource_ids: [],
});

const bodyOf = (draft: Draft): PeriodInput => ({
  ...(draft.id ? { id: draft.id } : {}),
  name: draft.name.trim(),
  days_of_week: draft.days_of_week,
  start_time: draft.start_time,
  end_time: draft.end_time,
  last_start_time: orNull(draft.last_start_time),
  slot_interval_minutes: numberOrNull(draft.slot_interval_minutes),
  max_covers_per_slot: numberOrNull(draft.max_covers_per_slot),
  max_bookings_per_slot: numberOrNull(draft.max_bookings_per_slot),
  turn_times: draft.turn_times,
  resource_ids: draft.resource_ids,
});

/** Service periods (lunch, dinner): when bookings start on which days, their grid and pacing. */
export default function Periods() {
  const [periods, setPeriods] = useState<Period[] | null>(null);
  const version = versionOf('settings');
  useEffect(() => {
    call((api) => api.GET('/v1/manage/service-periods'))
      .then(setPeriods)
      .catch(report);
  }, [version]);
  if (!periods) return <p role="status">{t('loading')}</p>;
  return <PeriodsForm periods={periods} />;
}

function PeriodsForm({ periods }: { periods: Period[] }) {
  const saving = useSaving();
  const [drafts, setDrafts] = useState<Draft[]>(() => periods.map(draftOf));
  const change = (key: string, patch: Partial<Draft>) =>
    setDrafts((all) => all.map((draft) => (draft.key === key ? { ...draft, ...patch } : draft)));
  const add = () => {
    const draft = blank();
    setDrafts((all) => [...all, draft]);
    // The new period's name is where the host types next.
    requestAnimationFrame(() => document.getElementById(fieldId(`periods[${drafts.length}].name`))?.focus());
  };
  const save = async () => {
    const saved = await saving.submit(() =>
      call((api) => api.PUT('/v1/manage/service-periods', { body: { periods: drafts.map(bodyOf) } })),
    );
    if (saved) setDrafts(saved.map(draftOf));
  };
  return (
    <SettingsForm
      saving={saving}
      onSave={save}
      saveLabel={t('settingsSavePeriods')}
      shown={(field) => /^periods\[\d+\]\./.test(field)}
    >
      <p class="hint">{t('settingsPeriodsHint')}</p>
      {drafts.length === 0 && <p>{t('settingsNoPeriods')}</p>}
      {drafts.map((draft, index) => (
        <PeriodFields
          key={draft.key}
          draft={draft}
          index={index}
          saving={saving}
          onChange={(patch) => change(draft.key, patch)}
          onRemove={() => setDrafts((all) => all.filter((other) => other.key !== draft.key))}
        />
      ))}
      {mayChange() && (
        <button type="button" class="quiet" onClick={add}>
          {t('settingsAddPeriod')}
        </button>
      )}
    </SettingsForm>
  );
}

function PeriodFields({
  draft,
  index,
  saving,
  onChange,
  onRemove,
}: {
  draft: Draft;
  index: number;
  saving: Saving;
  onChange: (patch: Partial<Draft>) => void;
  onRemove: () => void;
}) {
  const path = (field: string) => `periods[${index}].${field}`;
  const { errors } = saving;
  const bind = (
    field:
      | 'name'
      | 'start_time'
      | 'end_time'
      | 'last_start_time'
      | 'slot_interval_minutes'
      | 'max_covers_per_slot'
      | 'max_bookings_per_slot',
  ) => ({
    field: path(field),
    errors,
    value: draft[field],
    onValue: (value: string) => onChange({ [field]: value }),
  });
  const title = draft.name.trim() || t('settingsNewPeriod');
  const daysError = errors[path('days_of_week')];
  const daysId = fieldId(path('days_of_week'));
  return (
    <fieldset class="period">
      <legend>{title}</legend>
      <div class="fields">
        <Field {...bind('name')} label={t('name')} maxLength={60} />
        <Field {...bind('start_time')} label={t('settingsFrom')} type="time" />
        <Field {...bind('end_time')} label={t('settingsUntil')} type="time" />
        <Field {...bind('last_start_time')} label={t('settingsLastStart')} type="time" />
        <Field
          {...bind('slot_interval_minutes')}
          label={t('settingsInterval')}
          type="number"
          min={15}
          max={120}
        />
        <Field
          {...bind('max_covers_per_slot')}
          label={t('settingsMaxCovers')}
          type="number"
          min={1}
          max={1000}
        />
        <Field
          {...bind('max_bookings_per_slot')}
          label={t('settingsMaxBookings')}
          type="number"
          min={1}
          max={500}
        />
      </div>
      <fieldset class="days" aria-describedby={daysError ? `${daysId}-error` : undefined}>
        <legend>{t('settingsDays')}</legend>
        {WEEK.map((day) => (
          <label key={day}>
            <input
              type="checkbox"
              aria-label={dayName(day)}
              checked={draft.days_of_week.includes(day)}
              onChange={(event) =>
                onChange({
                  days_of_week: event.currentTarget.checked
                    ? [...draft.days_of_week, day].sort()
                    : draft.days_of_week.filter((other) => other !== day),
                })
              }
            />
            {dayName(day, 'short')}
          </label>
        ))}
        {daysError && (
          <p id={`${daysId}-error`} class="field-error">
            {daysError}
          </p>
        )}
      </fieldset>
      {mayChange() && (
        <button type="button" class="quiet" onClick={onRemove}>
          {t('settingsRemovePeriod', { name: title })}
        </button>
      )}
    </fieldset>
  );
}
