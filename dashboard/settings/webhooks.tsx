import type { operations } from '@slotwise/sdk';
import { useEffect, useState } from 'preact/hooks';
import { clockFields } from '../../src/engine/clock.ts';
import { ALL_EVENTS, WEBHOOK_EVENTS } from '../../src/engine/webhook-events.ts';
import { allPages, call } from '../api.ts';
import { dataChanged, versionOf } from '../changes.ts';
import { language, t } from '../i18n.ts';
import { report } from '../problems.ts';
import { venue, venueHourCycle } from '../venue.ts';
import { Check, Field, fieldId, orNull, SettingsForm, useSaving } from './form.tsx';
import { ShownOnce } from './shown-once.tsx';

type Endpoint =
  operations['listWebhookEndpoints']['responses'][200]['content']['application/json']['items'][number];
type Delivery =
  operations['listWebhookDeliveries']['responses'][200]['content']['application/json']['items'][number];

/**
 * The business's webhook endpoints: listed with their status, added (the signing secret shown
 * once), tested, deleted; each one's deliveries, a failed one sent again.
 */
export default function Webhooks() {
  const [endpoints, setEndpoints] = useState<Endpoint[] | null>(null);
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const version = versionOf('settings');
  useEffect(() => {
    allPages((cursor) =>
      call((api) => api.GET('/v1/manage/webhooks', { params: { query: { limit: 200, cursor } } })),
    )
      .then(setEndpoints)
      .catch(report);
  }, [version]);

  const test = async (endpoint: Endpoint) => {
    try {
      await call((api) =>
        api.POST('/v1/manage/webhooks/{endpoint_id}/test', {
          params: { path: { endpoint_id: endpoint.id } },
        }),
      );
      setOpen(endpoint.id);
      dataChanged();
    } catch (error) {
      report(error);
    }
  };
  const remove = async (endpoint: Endpoint) => {
    if (!confirm(t('settingsWebhookDeleteConfirm', { url: endpoint.url }))) return;
    try {
      await call((api) =>
        api.DELETE('/v1/manage/webhooks/{endpoint_id}', { params: { path: { endpoint_id: endpoint.id } } }),
      );
      dataChanged();
      document.getElementById('settings-title')?.focus();
    } catch (error) {
      report(error);
    }
  };

  if (!endpoints) return <p role="status">{t('loading')}</p>;
  return (
    <>
      {secret && (
        <ShownOnce
          title={t('settingsWebhookSecretOnce', { url: secret.url })}
          copyLabel={t('settingsWebhookCopySecret')}
          secret={secret.secret}
          onClose={() => {
            setSecret(null);
            document.getElementById('settings-title')?.focus();
          }}
        />
      )}
      {endpoints.length === 0 && <p>{t('settingsNoWebhooks')}</p>}
      <ul class="rows">
        {endpoints.map((endpoint) => (
          <li key={endpoint.id} class="webhook">
            <div class="row">
              <span class="row-main">
                <strong class="webhook-url">{endpoint.url}</strong>{' '}
                <span class={`webhook-status ${endpoint.status}`}>
                  {endpoint.status === 'failing' ? t('settingsWebhookFailing') : t('settingsWebhookActive')}
                </span>
                <br />
                <small>
                  {endpoint.events.includes(ALL_EVENTS)
                    ? t('settingsWebhookAllEvents')
                    : endpoint.events.join(', ')}
                  {endpoint.description && ` · ${endpoint.description}`}
                </small>
              </span>
              {/* The group names the endpoint its short buttons act on. */}
              <fieldset class="row-actions">
                <legend class="sr-only">{endpoint.url}</legend>
                <button type="button" class="quiet" onClick={() => test(endpoint)}>
                  {t('settingsWebhookTest')}
                </button>
                <button
                  type="button"
                  class="quiet"
                  aria-expanded={open === endpoint.id}
                  aria-controls={`deliveries-${endpoint.id}`}
                  onClick={() => setOpen(open === endpoint.id ? null : endpoint.id)}
                >
                  {t('settingsWebhookShowDeliveries')}
                </button>
                <button type="button" class="quiet danger" onClick={() => remove(endpoint)}>
                  {t('settingsWebhookDelete')}
                </button>
              </fieldset>
            </div>
            {open === endpoint.id && <Deliveries endpoint={endpoint} />}
          </li>
        ))}
      </ul>
      <h3>{t('settingsAddWebhook')}</h3>
      <WebhookForm onAdded={setSecret} />
    </>
  );
}

/** The endpoint's last deliveries, newest first; a failed one can be sent again. */
function Deliveries({ endpoint }: { endpoint: Endpoint }) {
  const [deliveries, setDeliveries] = useState<Delivery[] | null>(null);
  const version = versionOf('settings');
  useEffect(() => {
    call((api) =>
      api.GET('/v1/manage/webhooks/{endpoint_id}/deliveries', {
        params: { path: { endpoint_id: endpoint.id }, query: { limit: 50 } },
      }),
    )
      .then((page) => setDeliveries(page.items))
      .catch(report);
  }, [version, endpoint.id]);

  const retry = async (delivery: Delivery) => {
    try {
      await call((api) =>
        api.POST('/v1/manage/webhooks/{endpoint_id}/deliveries/{delivery_id}/retry', {
          params: { path: { endpoint_id: endpoint.id, delivery_id: delivery.id } },
        }),
      );
      dataChanged();
    } catch (error) {
      report(error);
    }
  };

  const when = new Intl.DateTimeFormat(language.value, {
    day: 'numeric',
    month: 'numeric',
    year: '2-digit',
    ...clockFields(venueHourCycle()),
    timeZone: venue.value?.timezone,
  });
  return (
    <section
      id={`deliveries-${endpoint.id}`}
      class="deliveries"
      aria-label={t('settingsWebhookDeliveries', { url: endpoint.url })}
    >
      {!deliveries ? (
        <p role="status">{t('loading')}</p>
      ) : deliveries.length === 0 ? (
        <p>{t('settingsNoDeliveries')}</p>
      ) : (
        <ul class="rows">
          {deliveries.map((delivery) => (
            <li key={delivery.id} class="row">
              <span class="row-main">
                <strong>{delivery.event_type}</strong> {when.format(new Date(delivery.created_at))} ·{' '}
                {t(STATUS_TEXT[delivery.status])}
                {delivery.attempts > 0 && ` · ${t('settingsWebhookAttempts', { n: delivery.attempts })}`}
                {delivery.last_error && (
                  <>
                    {' · '}
                    <code>{delivery.last_error}</code>
                  </>
                )}
              </span>
              {delivery.status === 'failed' && (
                <button type="button" class="quiet" onClick={() => retry(delivery)}>
                  {t('settingsWebhookRetry', { event: delivery.event_type })}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

const STATUS_TEXT = {
  pending: 'settingsDeliveryPending',
  retrying: 'settingsDeliveryRetrying',
  delivered: 'settingsDeliveryDelivered',
  failed: 'settingsDeliveryFailed',
} as const;

const SHOWN = ['url', 'description', 'events'];

function WebhookForm({ onAdded }: { onAdded: (shown: { url: string; secret: string }) => void }) {
  const saving = useSaving();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [every, setEvery] = useState(true);
  const [events, setEvents] = useState<string[]>([]);
  const { errors } = saving;
  const eventsError = Object.entries(errors).find(([field]) => field.startsWith('events'))?.[1];
  const save = async () => {
    const added = await saving.submit(
      () =>
        call((api) =>
          api.POST('/v1/manage/webhooks', {
            body: {
              url: url.trim(),
              events: every ? [ALL_EVENTS] : WEBHOOK_EVENTS.filter((event) => events.includes(event)),
              description: orNull(description),
            },
          }),
        ),
      t('settingsWebhookAdded'),
    );
    if (added) {
      setUrl('');
      setDescription('');
      onAdded({ url: added.url, secret: added.secret });
    }
  };
  return (
    <SettingsForm
      saving={saving}
      onSave={save}
      saveLabel={t('settingsAddWebhook')}
      shown={(field) => SHOWN.some((shown) => field.startsWith(shown))}
    >
      <div class="fields">
        <Field
          field="url"
          label={t('settingsWebhookUrl')}
          errors={errors}
          value={url}
          onValue={setUrl}
          type="url"
          maxLength={2048}
          placeholder="https://"
        />
        <Field
          field="description"
          label={t('settingsDescription')}
          errors={errors}
          value={description}
          onValue={setDescription}
          maxLength={500}
        />
      </div>
      <fieldset class="days" aria-describedby={eventsError ? `${fieldId('events')}-error` : undefined}>
        <legend>{t('settingsWebhookEvents')}</legend>
        <Check
          field="events-all"
          label={t('settingsWebhookAllEvents')}
          errors={errors}
          checked={every}
          onChecked={setEvery}
        />
        {!every &&
          WEBHOOK_EVENTS.map((event) => (
            <Check
              key={event}
              field={`event-${event}`}
              label={event}
              errors={errors}
              checked={events.includes(event)}
              onChecked={(on) =>
                setEvents((all) => (on ? [...all, event] : all.filter((other) => other !== event)))
              }
            />
          ))}
        {eventsError && (
          <p id={`${fieldId('events')}-error`} class="field-error">
            {eventsError}
          </p>
        )}
      </fieldset>
    </SettingsForm>
  );
}
