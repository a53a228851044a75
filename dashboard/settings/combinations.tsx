import type { operations } from '@slotwise/sdk';
import { useEffect, useState } from 'preact/hooks';
import { PARTY_SIZE_MAX } from '../../src/engine/party.ts';
import { allPages, call } from '../api.ts';
import { dataChanged, versionOf } from '../changes.ts';
import { t } from '../i18n.ts';
import { report } from '../problems.ts';
import { Check, Field, mayChange, SettingsForm, useSaving } from './form.tsx';

type Combination =
  operations['listCombinations']['responses'][200]['content']['application/json']['items'][number];
type Table = operations['listResources']['responses'][200]['content']['application/json']['items'][number];

/** Tables joined for larger parties: listed with their tables, added by choosing two or more, changed, deleted. */
export default function Combinations() {
  const [combinations, setCombinations] = useState<Combination[] | null>(null);
  const [editing, setEditing] = useState<Combination | null>(null);
  const [tables, setTables] = useState<Table[]>([]);
  const version = versionOf('settings');
  useEffect(() => {
    Promise.all([
      allPages((cursor) =>
        call((api) => api.GET('/v1/manage/combinations', { params: { query: { limit: 200, cursor } } })),
      ),
      allPages((cursor) =>
        call((api) => api.GET('/v1/manage/resources', { params: { query: { limit: 200, cursor } } })),
      ),
    ])
      .then(([listed, resources]) => {
        setTables(resources);
        setCombinations(listed);
      })
      .catch(report);
  }, [version]);

  const remove = async (combination: Combination) => {
    if (!confirm(t('settingsCombinationDeleteConfirm', { name: combination.name }))) return;
    try {
      await call((api) =>
        api.DELETE('/v1/manage/combinations/{combination_id}', {
          params: { path: { combination_id: combination.id } },
        }),
      );
      dataChanged();
      document.getElementById('settings-title')?.focus();
    } catch (error) {
      report(error);
    }
  };

  if (!combinations) return <p role="status">{t('loading')}</p>;
  const nameOf = new Map(tables.map((table) => [table.id, table.name]));
  return (
    <>
      {combinations.length === 0 && <p>{t('settingsNoCombinations')}</p>}
      <ul class="rows">
        {combinations.map((combination) => (
          <li key={combination.id} class="row">
            <span class="row-main">
              <strong>{combination.name}</strong>{' '}
              {combination.resource_ids.map((id) => nameOf.get(id) ?? '?').join(' + ')} ·{' '}
              {t('settingsSeats', { min: combination.capacity_min, max: combination.capacity_max })}
              {!combination.is_active && <em> · {t('settingsServiceInactive')}</em>}
            </span>
            {mayChange() && (
              <span class="row-actions">
                <button type="button" class="quiet" onClick={() => setEditing(combination)}>
                  {t('settingsCombinationChange', { name: combination.name })}
                </button>
                <button type="button" class="quiet danger" onClick={() => remove(combination)}>
                  {t('settingsCombinationDelete', { name: combination.name })}
                </button>
              </span>
            )}
          </li>
        ))}
      </ul>
      {mayChange() &&
        (editing ? (
          <>
            <h3 id="combination-editing" tabIndex={-1}>
              {t('settingsCombinationChange', { name: editing.name })}
            </h3>
            <CombinationForm
              key={editing.id}
              tables={tables.filter((table) => table.is_active || editing.resource_ids.includes(table.id))}
              editing={editing}
              onDone={() => setEditing(null)}
            />
          </>
        ) : (
          <>
            <h3>{t('settingsAddCombination')}</h3>
            <CombinationForm tables={tables.filter((table) => table.is_active)} />
          </>
        ))}
    </>
  );
}

const SHOWN = ['name', 'capacity_min', 'capacity_max', 'is_active'];

/**
 * A new combination of active tables (the API joins no table out of service); with `editing`, that
 * one's name, tables, seats and whether it is offered, changed in place.
 */
function CombinationForm({
  tables,
  editing,
  onDone,
}: {
  tables: Table[];
  editing?: Combination;
  onDone?: () => void;
}) {
  const saving = useSaving();
  const [name, setName] = useState(editing?.name ?? '');
  const [chosen, setChosen] = useState<string[]>(editing ? [...editing.resource_ids] : []);
  const [min, setMin] = useState(String(editing?.capacity_min ?? 5));
  const [max, setMax] = useState(String(editing?.capacity_max ?? 8));
  const [offered, setOffered] = useState(editing?.is_active ?? true);
  useEffect(() => {
    if (editing) document.getElementById('combination-editing')?.focus();
  }, [editing]);
  const { errors } = saving;
  const save = async () => {
    const body = {
      name: name.trim(),
      // In the tables' display order: the first is the one a booking on it shows.
      resource_ids: tables.filter((table) => chosen.includes(table.id)).map((table) => table.id),
      capacity_min: Number(min),
      capacity_max: Number(max),
    };
    const saved = await saving.submit(() =>
      editing
        ? call((api) =>
            api.PATCH('/v1/manage/combinations/{combination_id}', {
              params: { path: { combination_id: editing.id } },
              body: { ...body, is_active: offered },
            }),
          )
        : call((api) => api.POST('/v1/manage/combinations', { body })),
    );
    if (saved && editing) onDone?.();
    else if (saved) {
      setName('');
      setChosen([]);
    }
  };
  const tablesError = Object.entries(errors).find(([field]) => field.startsWith('resource_ids'))?.[1];
  return (
    <SettingsForm
      saving={saving}
      onSave={save}
      saveLabel={editing ? t('settingsSave') : t('settingsAddCombination')}
      shown={(field) => SHOWN.includes(field) || field.startsWith('resource_ids')}
    >
      <div class="fields">
        <Field field="name" label={t('name')} errors={errors} value={name} onValue={setName} maxLength={60} />
        <Field
          field="capacity_min"
          label={t('settingsMinParty')}
          errors={errors}
          value={min}
          onValue={setMin}
          type="number"
          min={1}
          max={PARTY_SIZE_MAX}
        />
        <Field
          field="capacity_max"
          label={t('settingsMaxParty')}
          errors={errors}
          value={max}
          onValue={setMax}
          type="number"
          min={1}
          max={PARTY_SIZE_MAX}
        />
      </div>
      <fieldset class="days" aria-describedby={tablesError ? 'combination-tables-error' : undefined}>
        <legend>{t('settingsCombinationTables')}</legend>
        {tables.map((table) => (
          <Check
            key={table.id}
            field={`combine-${table.id}`}
            label={table.name}
            errors={errors}
            checked={chosen.includes(table.id)}
            onChecked={(on) =>
              setChosen((all) => (on ? [...all, table.id] : all.filter((other) => other !== table.id)))
            }
          />
        ))}
        {tablesError && (
          <p id="combination-tables-error" class="field-error">
            {tablesError}
          </p>
        )}
      </fieldset>
      {editing && (
        <>
          <Check
            field="is_active"
            label={t('settingsCombinationOffered')}
            errors={errors}
            checked={offered}
            onChecked={setOffered}
          />
          <button type="button" class="quiet" onClick={onDone}>
            {t('settingsCancel')}
          </button>
        </>
      )}
    </SettingsForm>
  );
}
