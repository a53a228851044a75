import type { operations } from '@slotwise/sdk';
import { useEffect, useRef, useState } from 'preact/hooks';
import { allPages, call } from '../api.ts';
import { dataChanged, versionOf } from '../changes.ts';
import { t } from '../i18n.ts';
import { report } from '../problems.ts';
import { Check, Field, mayChange, numberOrNull, SettingsForm, text, useSaving } from './form.tsx';

type Service = operations['listServices']['responses'][200]['content']['application/json']['items'][number];
type Resource = operations['listResources']['responses'][200]['content']['application/json']['items'][number];
type Requirement = Service['requirements'][number];

/** What can be booked: listed (inactive ones too), added, changed, deleted. */
export default function Services() {
  const [services, setServices] = useState<Service[] | null>(null);
  const [resources, setResources] = useState<Resource[]>([]);
  const [editing, setEditing] = useState<string | null>(null);
  const version = versionOf('settings');
  useEffect(() => {
    Promise.all([
      allPages((cursor) =>
        call((api) =>
          api.GET('/v1/manage/services', {
            params: { query: { limit: 200, cursor, include_inactive: true } },
          }),
        ),
      ),
      allPages((cursor) =>
        call((api) => api.GET('/v1/manage/resources', { params: { query: { limit: 200, cursor } } })),
      ),
    ])
      .then(([listed, tables]) => {
        setResources(tables);
        setServices(listed);
      })
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
                resources={resources}
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
                {service.seats !== null && <> · {t('settingsClassOf', { n: service.seats })}</>}
                {service.requirements.length > 0 && (
                  <> · {service.requirements.map((group) => group.name).join(' + ')}</>
                )}
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
          <ServiceForm resources={resources} />
        </>
      )}
    </>
  );
}

const SHOWN = ['name', 'duration_minutes', 'is_active', 'seats', 'requirements'];

/** A new service (no `service`), or a change to one; `onDone` after a change is saved or abandoned. */
function ServiceForm({
  service,
  resources,
  onDone,
}: {
  service?: Service;
  resources: Resource[];
  onDone?: () => void;
}) {
  const saving = useSaving();
  const first = useRef<HTMLDivElement>(null);
  const [name, setName] = useState(service?.name ?? '');
  const [duration, setDuration] = useState(text(service?.duration_minutes ?? 90));
  const [active, setActive] = useState(service?.is_active ?? true);
  const [seats, setSeats] = useState(text(service?.seats));
  const [groups, setGroups] = useState<Requirement[]>(service?.requirements ?? []);
  useEffect(() => {
    if (service) first.current?.querySelector('input')?.focus();
  }, []);
  const save = async () => {
    const fields = {
      name: name.trim(),
      duration_minutes: Number(duration),
      is_active: active,
      seats: numberOrNull(seats),
      requirements: groups.map((group) => ({ ...group, name: group.name.trim() })),
    };
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
    if (saved && !service) {
      setName('');
      setSeats('');
      setGroups([]);
    }
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
        <Field
          field={`${prefix}seats`}
          label={t('settingsClassSeats')}
          hint={t('settingsSeatsHint')}
          errors={errors}
          value={seats}
          onValue={setSeats}
          type="number"
          min={2}
          max={500}
        />
      </div>
      <Groups
        prefix={prefix}
        groups={groups}
        onGroups={setGroups}
        resources={resources}
        error={errors[`${prefix}requirements`]}
      />
      {service && (
        <button type="button" class="quiet" onClick={onDone}>
          {t('settingsCancel')}
        </button>
      )}
    </SettingsForm>
  );
}

/**
 * The resources a booking of the service holds together (a stylist and a chair): each group named,
 * its resources ticked, how many of it a booking takes. The API judges them (422 on `requirements`).
 */
function Groups({
  prefix,
  groups,
  onGroups,
  resources,
  error,
}: {
  prefix: string;
  groups: Requirement[];
  onGroups: (groups: Requirement[]) => void;
  resources: Resource[];
  error: string | undefined;
}) {
  const change = (index: number, group: Partial<Requirement>) =>
    onGroups(groups.map((other, at) => (at === index ? { ...other, ...group } : other)));
  const errorId = `${prefix}requirements-error`;
  return (
    <fieldset class="groups" aria-describedby={error ? errorId : undefined}>
      <legend>{t('settingsRequirements')}</legend>
      <p class="hint">{t('settingsRequirementsHint')}</p>
      {groups.map((group, index) => (
        <fieldset key={index} class="days">
          <legend>{group.name || t('settingsRequirementUnnamed', { n: index + 1 })}</legend>
          <Field
            field={`${prefix}group-${index}-name`}
            label={t('name')}
            errors={{}}
            value={group.name}
            onValue={(value) => change(index, { name: value })}
            maxLength={60}
          />
          <Field
            field={`${prefix}group-${index}-count`}
            label={t('settingsRequirementCount')}
            errors={{}}
            value={text(group.count)}
            onValue={(value) => change(index, { count: Number(value) })}
            type="number"
            min={1}
            max={6}
          />
          {resources.map((resource) => (
            <Check
              key={resource.id}
              field={`${prefix}group-${index}-${resource.id}`}
              label={resource.name}
              errors={{}}
              checked={group.resource_ids.includes(resource.id)}
              onChecked={(on) =>
                change(index, {
                  resource_ids: on
                    ? [...group.resource_ids, resource.id]
                    : group.resource_ids.filter((id) => id !== resource.id),
                })
              }
            />
          ))}
          <button
            type="button"
            class="quiet danger"
            onClick={() => onGroups(groups.filter((_, at) => at !== index))}
          >
            {t('settingsRequirementRemove', { name: group.name || String(index + 1) })}
          </button>
        </fieldset>
      ))}
      <button
        type="button"
        class="quiet"
        onClick={() => onGroups([...groups, { name: '', resource_ids: [], count: 1 }])}
      >
        {t('settingsRequirementAdd')}
      </button>
      {error && (
        <p id={errorId} class="field-error">
          {error}
        </p>
      )}
    </fieldset>
  );
}
