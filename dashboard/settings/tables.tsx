import { useEffect, useRef, useState } from 'preact/hooks';
import { PARTY_SIZE_MAX } from '../../src/engine/party.ts';
import { allPages, call } from '../api.ts';
import { versionOf } from '../changes.ts';
import { t } from '../i18n.ts';
import { report } from '../problems.ts';
import { Check, Field, mayChange, orNull, SettingsForm, text, useSaving } from './form.tsx';

type Listed = Awaited<ReturnType<typeof loadResources>>[number];

const loadResources = () =>
  allPages((cursor) =>
    call((api) => api.GET('/v1/manage/resources', { params: { query: { limit: 200, cursor } } })),
  );

/** The venue's tables (resources) by section, in display order: add one, change one, take one out of service. */
export default function Tables() {
  const [tables, setTables] = useState<Listed[] | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const version = versionOf('settings');
  useEffect(() => {
    loadResources().then(setTables).catch(report);
  }, [version]);
  if (!tables) return <p role="status">{t('loading')}</p>;
  const sections = [...new Set(tables.map((table) => table.section ?? ''))];
  return (
    <>
      {tables.length === 0 && <p>{t('settingsNoTables')}</p>}
      {sections.map((section) => (
        <div key={section} class="table-group">
          <h3>{section || t('settingsNoSection')}</h3>
          <ul class="rows">
            {tables
              .filter((table) => (table.section ?? '') === section)
              .map((table) =>
                editing === table.id ? (
                  <li key={table.id}>
                    <TableForm
                      table={table}
                      onDone={() => {
                        setEditing(null);
                        // Back on the row's own button, where the host left it.
                        requestAnimationFrame(() => document.getElementById(`edit-${table.id}`)?.focus());
                      }}
                    />
                  </li>
                ) : (
                  <li key={table.id} class="row">
                    <span class="row-main">
                      <strong>{table.name}</strong>{' '}
                      {t('settingsSeats', { min: table.capacity_min, max: table.capacity_max })}
                      {!table.is_active && <em> · {t('settingsInactive')}</em>}
                    </span>
                    {mayChange() && (
                      <button
                        type="button"
                        class="quiet"
                        id={`edit-${table.id}`}
                        onClick={() => setEditing(table.id)}
                      >
                        {t('settingsEditTable', { name: table.name })}
                      </button>
                    )}
                  </li>
                ),
              )}
          </ul>
        </div>
      ))}
      {mayChange() && (
        <>
          <h3>{t('settingsAddTable')}</h3>
          <TableForm />
        </>
      )}
      <datalist id="sections">
        {sections.filter(Boolean).map((name) => (
          <option key={name} value={name} />
        ))}
      </datalist>
    </>
  );
}

const SHOWN = ['name', 'section', 'capacity_min', 'capacity_max', 'display_order', 'is_active'];

/** A new table (no `table`), or a change to one; `onDone` after a change is saved or abandoned. */
function TableForm({ table, onDone }: { table?: Listed; onDone?: () => void }) {
  const saving = useSaving();
  const first = useRef<HTMLDivElement>(null);
  const [name, setName] = useState(table?.name ?? '');
  const [section, setSection] = useState(text(table?.section));
  const [min, setMin] = useState(text(table?.capacity_min ?? 2));
  const [max, setMax] = useState(text(table?.capacity_max ?? 4));
  const [order, setOrder] = useState(text(table?.display_order));
  const [active, setActive] = useState(table?.is_active ?? true);
  const { errors } = saving;
  useEffect(() => {
    if (table) first.current?.querySelector('input')?.focus();
  }, []);
  const prefix = table ? `table-${table.id}-` : 'new-';
  const save = async () => {
    const fields = {
      name: name.trim(),
      section: orNull(section),
      capacity_min: Number(min),
      capacity_max: Number(max),
      is_active: active,
      ...(order.trim() ? { display_order: Number(order) } : {}),
    };
    const saved = await saving.submit(() =>
      table
        ? call((api) =>
            api.PATCH('/v1/manage/resources/{resource_id}', {
              params: { path: { resource_id: table.id } },
              body: fields,
            }),
          )
        : call((api) => api.POST('/v1/manage/resources', { body: fields })),
    );
    if (saved && !table) {
      setName('');
      setOrder('');
    }
    if (saved) onDone?.();
  };
  // Ids of a row's inputs differ from the new table's form: both can be on the page at once.
  const idOf = (field: string) => `${prefix}${field}`;
  const errorsByField = Object.fromEntries(
    Object.entries(errors).map(([field, message]) => [idOf(field), message]),
  );
  return (
    <SettingsForm
      saving={saving}
      onSave={save}
      saveLabel={table ? t('settingsSaveTable', { name: table.name }) : t('settingsAddTable')}
      shown={(field) => SHOWN.includes(field)}
    >
      <div class="fields" ref={first}>
        <Field
          field={idOf('name')}
          label={t('name')}
          errors={errorsByField}
          value={name}
          onValue={setName}
          maxLength={100}
        />
        <Field
          field={idOf('section')}
          label={t('settingsSection')}
          errors={errorsByField}
          value={section}
          onValue={setSection}
          maxLength={100}
          list="sections"
        />
        <Field
          field={idOf('capacity_min')}
          label={t('settingsMinParty')}
          errors={errorsByField}
          value={min}
          onValue={setMin}
          type="number"
          min={1}
          max={PARTY_SIZE_MAX}
        />
        <Field
          field={idOf('capacity_max')}
          label={t('settingsMaxParty')}
          errors={errorsByField}
          value={max}
          onValue={setMax}
          type="number"
          min={1}
          max={PARTY_SIZE_MAX}
        />
        <Field
          field={idOf('display_order')}
          label={t('settingsOrder')}
          errors={errorsByField}
          value={order}
          onValue={setOrder}
          type="number"
          min={0}
        />
        <Check
          field={idOf('is_active')}
          label={t('settingsActive')}
          errors={errorsByField}
          checked={active}
          onChecked={setActive}
        />
      </div>
      {table && (
        <button type="button" class="quiet" onClick={onDone}>
          {t('settingsCancel')}
        </button>
      )}
    </SettingsForm>
  );
}
