import type { operations } from '@slotwise/sdk';
import { useEffect, useState } from 'preact/hooks';
import { dayShort } from '../../widget/format.ts';
import { allPages, call } from '../api.ts';
import { dataChanged, versionOf } from '../changes.ts';
import { language, t } from '../i18n.ts';
import { report } from '../problems.ts';
import { Field, mayChange, orNull, SettingsForm, useSaving } from './form.tsx';

type Blackout =
  operations['listBlackoutDates']['responses'][200]['content']['application/json']['items'][number];

/** Days the venue is closed: listed (past ones too), added as a day or a range with a reason, removed. */
export default function Blackouts() {
  const [blackouts, setBlackouts] = useState<Blackout[] | null>(null);
  const version = versionOf('settings');
  useEffect(() => {
    allPages((cursor) =>
      call((api) => api.GET('/v1/manage/blackout-dates', { params: { query: { limit: 200, cursor } } })),
    )
      .then(setBlackouts)
      .catch(report);
  }, [version]);

  const remove = async (blackout: Blackout, days: string) => {
    if (!confirm(t('settingsBlackoutRemoveConfirm', { days }))) return;
    try {
      await call((api) =>
        api.DELETE('/v1/manage/blackout-dates/{blackout_id}', {
          params: { path: { blackout_id: blackout.id } },
        }),
      );
      dataChanged();
      document.getElementById('settings-title')?.focus();
    } catch (error) {
      report(error);
    }
  };

  if (!blackouts) return <p role="status">{t('loading')}</p>;
  const day = (date: string) => dayShort(language.value, date);
  return (
    <>
      {blackouts.length === 0 && <p>{t('settingsNoBlackouts')}</p>}
      <ul class="rows">
        {blackouts.map((blackout) => {
          const days =
            blackout.start_date === blackout.end_date
              ? day(blackout.start_date)
              : `${day(blackout.start_date)} – ${day(blackout.end_date)}`;
          return (
            <li key={blackout.id} class="row">
              <span class="row-main">
                <strong>{days}</strong>
                {blackout.reason && ` · ${blackout.reason}`}
              </span>
              {mayChange() && (
                <button type="button" class="quiet danger" onClick={() => remove(blackout, days)}>
                  {t('settingsBlackoutRemove', { days })}
                </button>
              )}
            </li>
          );
        })}
      </ul>
      {mayChange() && (
        <>
          <h3>{t('settingsAddBlackout')}</h3>
          <BlackoutForm />
        </>
      )}
    </>
  );
}

const SHOWN = ['start_date', 'end_date', 'reason'];

function BlackoutForm() {
  const saving = useSaving();
  const [start, setStart] = useState('');
  const [end, setEnd] = useState('');
  const [reason, setReason] = useState('');
  const save = async () => {
    const added = await saving.submit(() =>
      call((api) =>
        api.POST('/v1/manage/blackout-dates', {
          // One day when no last day is given: the common case is a single closed day.
          body: { start_date: start, end_date: end || start, reason: orNull(reason) },
        }),
      ),
    );
    if (added) {
      setStart('');
      setEnd('');
      setReason('');
    }
  };
  return (
    <SettingsForm
      saving={saving}
      onSave={save}
      saveLabel={t('settingsAddBlackout')}
      shown={(field) => SHOWN.includes(field)}
    >
      <div class="fields">
        <Field
          field="start_date"
          label={t('settingsFirstDay')}
          errors={saving.errors}
          value={start}
          onValue={setStart}
          type="date"
        />
        <Field
          field="end_date"
          label={t('settingsLastDay')}
          hint={t('settingsLastDayHint')}
          errors={saving.errors}
          value={end}
          onValue={setEnd}
          type="date"
        />
        <Field
          field="reason"
          label={t('settingsReason')}
          hint={t('settingsReasonHint')}
          errors={saving.errors}
          value={reason}
          onValue={setReason}
          maxLength={500}
        />
      </div>
    </SettingsForm>
  );
}
