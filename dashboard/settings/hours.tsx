import type { operations } from '@slotwise/sdk';
import { useEffect, useState } from 'preact/hooks';
import { call } from '../api.ts';
import { versionOf } from '../changes.ts';
import { t } from '../i18n.ts';
import { report } from '../problems.ts';
import { TimeInput } from '../time-input.tsx';
import { dayName, WEEK } from './days.ts';
import { fieldId, mayChange, type Saving, SettingsForm, text, useSaving } from './form.tsx';

type Day = operations['getHours']['responses'][200]['content']['application/json'][number];
interface DayInput {
  is_open: boolean;
  open_time: string;
  close_time: string;
  last_booking_time: string;
}

/** The weekly opening hours: for each day, open or closed, from, until, and the latest start. */
export default function Hours() {
  const [week, setWeek] = useState<Day[] | null>(null);
  const version = versionOf('settings');
  useEffect(() => {
    call((api) => api.GET('/v1/manage/hours'))
      .then(setWeek)
      .catch(report);
  }, [version]);
  if (!week) return <p role="status">{t('loading')}</p>;
  return <HoursForm week={week} />;
}

function HoursForm({ week }: { week: Day[] }) {
  const saving = useSaving();
  // Indexed by day_of_week, the order the API takes the rows in: its messages name `hours[<day>]`.
  const [days, setDays] = useState<DayInput[]>(() =>
    [0, 1, 2, 3, 4, 5, 6].map((day) => {
      const row = week.find((candidate) => candidate.day_of_week === day);
      return {
        is_open: row?.is_open ?? false,
        open_time: text(row?.open_time),
        close_time: text(row?.close_time),
        last_booking_time: text(row?.last_booking_time),
      };
    }),
  );
  const change = (day: number, patch: Partial<DayInput>) =>
    setDays((all) => all.map((row, index) => (index === day ? { ...row, ...patch } : row)));
  const save = () =>
    saving.submit(() =>
      call((api) =>
        api.PUT('/v1/manage/hours', {
          body: {
            hours: days.map((row, day) => ({
              day_of_week: day,
              is_open: row.is_open,
              open_time: row.is_open ? row.open_time || null : null,
              close_time: row.is_open ? row.close_time || null : null,
              last_booking_time: row.is_open ? row.last_booking_time || null : null,
            })),
          },
        }),
      ),
    );
  return (
    <SettingsForm saving={saving} onSave={save} shown={(field) => /^hours\[\d\]/.test(field)}>
      <p class="hint">{t('settingsHoursHint')}</p>
      <table class="hours">
        <thead>
          <tr>
            <th scope="col">{t('settingsDay')}</th>
            <th scope="col">{t('settingsOpen')}</th>
            <th scope="col">{t('settingsFrom')}</th>
            <th scope="col">{t('settingsUntil')}</th>
            <th scope="col">{t('settingsLastStart')}</th>
          </tr>
        </thead>
        <tbody>
          {WEEK.map((day) => (
            <DayRow
              key={day}
              day={day}
              row={days[day]!}
              saving={saving}
              onChange={(patch) => change(day, patch)}
            />
          ))}
        </tbody>
      </table>
    </SettingsForm>
  );
}

function DayRow({
  day,
  row,
  saving,
  onChange,
}: {
  day: number;
  row: DayInput;
  saving: Saving;
  onChange: (patch: Partial<DayInput>) => void;
}) {
  const name = dayName(day);
  const problems = Object.entries(saving.errors).filter(([field]) => field.startsWith(`hours[${day}]`));
  const errorId = fieldId(`hours[${day}]-error`);
  const labels: Record<string, string> = {
    open_time: t('settingsFrom'),
    close_time: t('settingsUntil'),
    last_booking_time: t('settingsLastStart'),
  };
  const time = (field: 'open_time' | 'close_time' | 'last_booking_time', label: string) => (
    <td data-label={label}>
      <TimeInput
        aria-label={`${name}: ${label}`}
        value={row[field]}
        disabled={!row.is_open || !mayChange()}
        aria-invalid={saving.errors[`hours[${day}].${field}`] ? true : undefined}
        aria-describedby={problems.length ? errorId : undefined}
        onTime={(time) => onChange({ [field]: time })}
      />
    </td>
  );
  return (
    <>
      <tr>
        <th scope="row">{name}</th>
        <td data-label={t('settingsOpen')}>
          <input
            type="checkbox"
            aria-label={`${name}: ${t('settingsOpen')}`}
            checked={row.is_open}
            onChange={(event) => onChange({ is_open: event.currentTarget.checked })}
          />
        </td>
        {time('open_time', t('settingsFrom'))}
        {time('close_time', t('settingsUntil'))}
        {time('last_booking_time', t('settingsLastStart'))}
      </tr>
      {problems.length > 0 && (
        <tr>
          <td colSpan={5} id={errorId} class="field-error">
            {problems
              .map(([field, message]) => {
                const part = field.split('.')[1] ?? '';
                return `${name}, ${labels[part] ?? part}: ${message}`;
              })
              .join('; ')}
          </td>
        </tr>
      )}
    </>
  );
}
