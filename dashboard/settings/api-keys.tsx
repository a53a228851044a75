import type { operations } from '@slotwise/sdk';
import { useEffect, useState } from 'preact/hooks';
import { allPages, call } from '../api.ts';
import { dataChanged, versionOf } from '../changes.ts';
import { t } from '../i18n.ts';
import { report } from '../problems.ts';
import { Check, Choice, fieldId, SettingsForm, TextArea, useSaving } from './form.tsx';
import { ShownOnce } from './shown-once.tsx';

type Key = operations['listApiKeys']['responses'][200]['content']['application/json']['items'][number];
type Scope = Key['scopes'][number];
const SCOPES: Scope[] = ['read', 'write', 'admin'];

/** The business's API keys: listed (never in full), created and rotated (the key shown once), revoked. */
export default function ApiKeys() {
  const [keys, setKeys] = useState<Key[] | null>(null);
  const [shown, setShown] = useState<{ name: string; key: string } | null>(null);
  const version = versionOf('settings');
  useEffect(() => {
    allPages((cursor) =>
      call((api) => api.GET('/v1/manage/api-keys', { params: { query: { limit: 200, cursor } } })),
    )
      .then(setKeys)
      .catch(report);
  }, [version]);

  const revoke = async (key: Key) => {
    if (!confirm(t('settingsRevokeConfirm', { name: key.name }))) return;
    try {
      await call((api) =>
        api.DELETE('/v1/manage/api-keys/{key_id}', { params: { path: { key_id: key.id } } }),
      );
      setShown(null);
      dataChanged();
      document.getElementById('settings-title')?.focus();
    } catch (error) {
      report(error);
    }
  };
  const rotate = async (key: Key) => {
    if (!confirm(t('settingsRotateConfirm', { name: key.name }))) return;
    try {
      const created = await call((api) =>
        api.POST('/v1/manage/api-keys/{key_id}/rotate', { params: { path: { key_id: key.id } } }),
      );
      setShown({ name: created.name, key: created.key });
      dataChanged();
    } catch (error) {
      report(error);
    }
  };

  if (!keys) return <p role="status">{t('loading')}</p>;
  return (
    <>
      {shown && (
        <ShownOnce
          title={t('settingsKeyOnce', { name: shown.name })}
          copyLabel={t('settingsCopy')}
          secret={shown.key}
          onClose={() => {
            setShown(null);
            document.getElementById('settings-title')?.focus();
          }}
        />
      )}
      <ul class="rows">
        {keys.map((key) => (
          <li key={key.id} class="row">
            <span class="row-main">
              <strong>{key.name}</strong> <code>{key.key ?? `${key.prefix}…`}</code>{' '}
              {[
                key.type === 'publishable' ? t('settingsPublishable') : t('settingsSecret'),
                ...(key.type === 'publishable' ? key.allowed_origins : key.scopes),
                ...(key.is_default ? [t('settingsDefaultKey')] : []),
              ].join(' · ')}
              {!key.is_active && <em> · {t('settingsRevoked')}</em>}
            </span>
            {key.is_active && (
              <span class="row-actions">
                <button type="button" class="quiet" onClick={() => rotate(key)}>
                  {t('settingsRotate', { name: key.name })}
                </button>
                {!key.is_default && (
                  <button type="button" class="quiet danger" onClick={() => revoke(key)}>
                    {t('settingsRevoke', { name: key.name })}
                  </button>
                )}
              </span>
            )}
          </li>
        ))}
      </ul>
      <h3>{t('settingsNewKey')}</h3>
      <KeyForm onCreated={setShown} />
    </>
  );
}

const SHOWN = ['name', 'type', 'scopes', 'allowed_origins'];

function KeyForm({ onCreated }: { onCreated: (key: { name: string; key: string }) => void }) {
  const saving = useSaving();
  const [name, setName] = useState('');
  const [type, setType] = useState<Key['type']>('publishable');
  const [scopes, setScopes] = useState<Scope[]>(['read', 'write']);
  const [origins, setOrigins] = useState('');
  const { errors } = saving;
  const save = async () => {
    const created = await saving.submit(
      () =>
        call((api) =>
          api.POST('/v1/manage/api-keys', {
            body:
              type === 'publishable'
                ? {
                    name: name.trim(),
                    type,
                    allowed_origins: origins
                      .split(/[\s,]+/)
                      .map((origin) => origin.trim())
                      .filter(Boolean),
                  }
                : { name: name.trim(), type, scopes },
          }),
        ),
      t('settingsKeyCreated'),
    );
    if (created) {
      setName('');
      setOrigins('');
      onCreated({ name: created.name, key: created.key });
    }
  };
  return (
    <SettingsForm
      saving={saving}
      onSave={save}
      saveLabel={t('settingsCreateKey')}
      shown={(field) => SHOWN.some((f) => field.startsWith(f))}
    >
      <div class="fields">
        <div class="field">
          <label for={fieldId('key-name')}>{t('name')}</label>
          <input
            id={fieldId('key-name')}
            value={name}
            maxLength={100}
            aria-invalid={errors.name ? true : undefined}
            aria-describedby={errors.name ? `${fieldId('key-name')}-error` : undefined}
            onInput={(event) => setName(event.currentTarget.value)}
          />
          {errors.name && (
            <p id={`${fieldId('key-name')}-error`} class="field-error">
              {errors.name}
            </p>
          )}
        </div>
        <Choice
          field="type"
          label={t('settingsKeyType')}
          errors={errors}
          value={type}
          onValue={(value) => setType(value as Key['type'])}
          options={[
            { value: 'publishable', label: t('settingsPublishableLong') },
            { value: 'secret', label: t('settingsSecretLong') },
          ]}
        />
      </div>
      {type === 'publishable' ? (
        <TextArea
          field="allowed_origins"
          label={t('settingsOrigins')}
          errors={Object.fromEntries(
            Object.entries(errors)
              .filter(([field]) => field.startsWith('allowed_origins'))
              .map(([, m]) => ['allowed_origins', m]),
          )}
          value={origins}
          onValue={setOrigins}
          maxLength={6000}
        />
      ) : (
        <fieldset class="days">
          <legend>{t('settingsScopes')}</legend>
          {SCOPES.map((scope) => (
            <Check
              key={scope}
              field={`scope-${scope}`}
              label={scope}
              errors={errors}
              checked={scopes.includes(scope)}
              onChecked={(on) =>
                setScopes((all) => (on ? [...all, scope] : all.filter((other) => other !== scope)))
              }
            />
          ))}
          {errors.scopes && <p class="field-error">{errors.scopes}</p>}
        </fieldset>
      )}
    </SettingsForm>
  );
}
