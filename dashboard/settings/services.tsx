import type { operations } from '@slotwise/sdk';
import { useEffect, useRef, useState } from 'preact/hooks';
import { allPages, call } from '../api.ts';
import { dataChanged, versionOf } from '../changes.ts';
import { t } from '../i18n.ts';
import { report } from '../problems.ts';
import { Check, Field, mayChange, SettingsForm, text, useSaving } from './form.tsx';

type Service = operations['listServices']['responses'][200]['content']['application/json']['items'][number];

/** What can be booked: listed (inactive ones too), added, changed, deleted. */
export default function Services() {
  const [services, setServices] = useState<Service[] | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const version = versionOf('settings');
  useEffect(() => {
    allPages((cursor) =>
      call((api) =>
        api.GET('/v1/manage/services', {
          params: { query: { limit: 200, cursor, include_inactive: true } },
        }),
      ),
    )
      .then(setServices)
      .catch(report);
  }, [version]);

  const remove = async (service: Service) => {
    if (!confirm(t('settingsServiceDeleteConfirm', { name: service.name }))) return;
    try {
      await call((api) =>
        api.DELETE('/v1/manage/services/{service_id}', { params: { path: { service_id: service.id } } }),
      );
      dataChanged();
      document.getElementById('settings-title')?.focus();
    } catch (error) {
      report(error);
    }
  };

  if (!services) return <p role="status">{t('loading')}</p>;
  return (
    <>
      {services.length === 0 && <p>{t('settingsNoServices')}</p>}
      <ul class="rows">
        {services.map((service) =>
          editing === service.id ? (
            <li key={service.id}>
              <ServiceForm
                service={service}
                onDone={() => {
                  setEditing(null);
                  requestAnimationFrame(() => document.getElementById(`edit-${service.id}`)?.focus());
                }}
              />
            </li>
          ) : (
            <li key={service.id} class="row">
              <span class="row-main">
                <strong>{service.name}</strong> {t('settingsMinutes', { n: service.duration_minutes })}
                {!service.is_active && <em> · {t('settingsServiceInactive')}</em>}
              </span>
              {mayChange() && (
                <span class="row-actions">
                  <button
                    type="button"
                    class="quiet"
                    id={`edit-${service.id}`}
                    onClick={() => setEditing(service.id)}
                  >
                    {t('settingsEditTable', { name: service.name })}
                  </button>
                  <button type="button" class="quiet danger" onClick={() => remove(service)}>
                    {t('settingsServiceDelete', { name: service.name })}
                  </button>
                </span>
              )}
            </li>
          ),
        )}
      </ul>
      {mayChange() && (
        <>
          <h3>{t('settingsAddService')}</h3>
          <ServiceForm />
        </>
      )}
    </>
  );
}

const SHOWN = ['name', 'duration_minutes', 'is_active'];

/** A new service (no `service`), or a change to one; `onDone` after a change is saved or abandoned. */
function ServiceForm({ service, onDone }: { service?: Service; onDone?: () => void }) {
  const saving = useSaving();
  const first = useRef<HTMLDivElement>(null);
  const [name, setName] = useState(service?.name ?? '');
  const [duration, setDuration] = useState(text(service?.duration_minutes ?? 90));
  const [active, setActive] = useState(service?.is_active ?? true);
  useEffect(() => {
    if (service) first.current?.querySelector('input')?.focus();
  }, []);
  const save = async () => {
    const fields = { name: name.trim(), duration_minutes: Number(duration), is_active: active };
    const saved = await saving.submit(() =>
      service
        ? call((api) =>
            api.PATCH('/v1/manage/services/{service_id}', {
              params: { path: { service_id: service.id } },
              body: fields,
            }),
          )
        : call((api) => api.POST('/v1/manage/services', { body: fields })),
    );
    if (saved && !service) setName('');
    if (saved) onDone?.();
  };
  // A row's inputs and the new service's form can be on the page at once: their ids differ.
  const prefix = service ? `service-${service.id}-` : 'new-service-';
  const errors = Object.fromEntries(
    Object.entries(saving.errors).map(([field, message]) => [`${prefix}${field}`, message]),
  );
  return (
    <SettingsForm
      saving={saving}
      onSave={save}
      saveLabel={service ? t('settingsSaveTable', { name: service.name }) : t('settingsAddService')}
      shown={(field) => SHOWN.includes(field)}
    >
      <div class="fields" ref={first}>
        <Field
          field={`${prefix}name`}
          label={t('name')}
          errors={errors}
          value={name}
          onValue={setName}
          maxLength={200}
        />
        <Field
          field={`${prefix}duration_minutes`}
          label={t('settingsDuration')}
          errors={errors}
          value={duration}
          onValue={setDuration}
          type="number"
          min={5}
          max={480}
        />
        <Check
          field={`${prefix}is_active`}
          label={t('settingsServiceActive')}
          errors={errors}
          checked={active}
          onChecked={setActive}
        />
      </div>
      {service && (
        <button type="button" class="quiet" onClick={onDone}>
          {t('settingsCancel')}
        </button>
      )}
    </SettingsForm>
  );
}
