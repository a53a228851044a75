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

/** Days the venue is closed: listed (past ones too), added as a day or a range with a reason, changed, removed. */
export default function Blackouts() {
  const [blackouts, setBlackouts] = useState<Blackout[] | null>(null);
  const [editing, setEditing] = useState<Blackout | null>(null);
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
                <span class="row-actions">
                  <button type="button" class="quiet" onClick={() => setEditing(blackout)}>
                    {t('settingsBlackoutChange', { days })}
                  </button>
                  <button type="button" class="quiet danger" onClick={() => remove(blackout, days)}>
                    {t('settingsBlackoutRemove', { days })}
                  </button>
                </span>
              )}
            </li>
          );
        })}
      </ul>
      {mayChange() &&
        (editing ? (
          <>
            <h3 id="blackout-editing" tabIndex={-1}>
              {t('settingsChangeBlackout')}
            </h3>
            <BlackoutForm key={editing.id} editing={editing} onDone={() => setEditing(null)} />
          </>
        ) : (
          <>
            <h3>{t('settingsAddBlackout')}</h3>
            <BlackoutForm />
          </>
        ))}
    </>
  );
}

const SHOWN = ['start_date', 'end_date', 'reason'];

/** A new closed day or range; with `editing`, that one's days and reason changed in place. */
function BlackoutForm({ editing, onDone }: { editing?: Blackout; onDone?: () => void }) {
  const saving = useSaving();
  const [start, setStart] = useState(editing?.start_date ?? '');
  const [end, setEnd] = useState(editing?.end_date ?? '');
  const [reason, setReason] = useState(editing?.reason ?? '');
  useEffect(() => {
    if (editing) document.getElementById('blackout-editing')?.focus();
  }, [editing]);
  const save = async () => {
    // One day when no last day is given: the common case is a single closed day.
    const body = { start_date: start, end_date: end || start, reason: orNull(reason) };
    const saved = await saving.submit(() =>
      editing
        ? call((api) =>
            api.PATCH('/v1/manage/blackout-dates/{blackout_id}', {
              params: { path: { blackout_id: editing.id } },
              body,
            }),
          )
        : call((api) => api.POST('/v1/manage/blackout-dates', { body })),
    );
    if (saved && editing) onDone?.();
    else if (saved) {
      setStart('');
      setEnd('');
      setReason('');
    }
  };
  return (
    <SettingsForm
      saving={saving}
      onSave={save}
      saveLabel={editing ? t('settingsSave') : t('settingsAddBlackout')}
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
      {editing && (
        <button type="button" class="quiet" onClick={onDone}>
          {t('settingsCancel')}
        </button>
      )}
    </SettingsForm>
  );
}
