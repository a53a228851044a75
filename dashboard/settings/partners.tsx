import type { operations } from '@slotwise/sdk';
import { useEffect, useRef, useState } from 'preact/hooks';
import { allPages, call } from '../api.ts';
import { dataChanged, versionOf } from '../changes.ts';
import { Confirm } from '../confirm.tsx';
import { language, t } from '../i18n.ts';
import { report } from '../problems.ts';
import { venue } from '../venue.ts';
import { Field, SettingsForm, useSaving } from './form.tsx';
import { ShownOnce } from './shown-once.tsx';

type Partner = operations['listPartners']['responses'][200]['content']['application/json']['items'][number];
type Created = operations['createPartner']['responses'][201]['content']['application/json'];

/** Where a partner calls: its booking server and feeds are served by this same origin. */
const partnerBase = () => `${location.origin}/partners/maps-booking`;
const FEEDS = ['merchants', 'services', 'availability'];

/**
 * The reservation partners the business is listed with: listed, added (the partner's password
 * shown once, with its user name and the addresses it calls), removed once asked.
 */
export default function Partners() {
  const [partners, setPartners] = useState<Partner[] | null>(null);
  const [created, setCreated] = useState<Created | null>(null);
  const version = versionOf('settings');
  useEffect(() => {
    allPages((cursor) =>
      call((api) => api.GET('/v1/manage/partners', { params: { query: { limit: 200, cursor } } })),
    )
      .then(setPartners)
      .catch(report);
  }, [version]);

  if (!partners) return <p role="status">{t('loading')}</p>;
  const since = new Intl.DateTimeFormat(language.value, {
    dateStyle: 'medium',
    timeZone: venue.value?.timezone,
  });
  return (
    <>
      <p>{t('settingsPartnersIntro')}</p>
      {created && (
        <ShownOnce
          title={t('settingsPartnerOnce', { name: created.name })}
          copyLabel={t('settingsPartnerCopy')}
          secret={created.password}
          onClose={() => {
            setCreated(null);
            document.getElementById('settings-title')?.focus();
          }}
        >
          <p>{t('settingsPartnerGive')}</p>
          <dl class="facts partner-access">
            <dt>{t('settingsPartnerUsername')}</dt>
            <dd>
              <code>{created.username}</code>
            </dd>
            <dt>{t('settingsPartnerServer')}</dt>
            <dd>
              <code>{partnerBase()}</code>
            </dd>
            <dt>{t('settingsPartnerFeeds')}</dt>
            <dd>
              <ul>
                {FEEDS.map((feed) => (
                  <li key={feed}>
                    <code>{`${partnerBase()}/feeds/${feed}.json`}</code>
                  </li>
                ))}
              </ul>
            </dd>
          </dl>
        </ShownOnce>
      )}
      {partners.length === 0 && <p>{t('settingsNoPartners')}</p>}
      <ul class="rows">
        {partners.map((partner) => (
          <li key={partner.id} class="row">
            <span class="row-main">
              <strong>{partner.name}</strong>
              <br />
              <small>
                {t('settingsPartnerUsername')}: <code>{partner.username}</code> ·{' '}
                {t('settingsPartnerSince', { date: since.format(new Date(partner.listed_at)) })}
              </small>
            </span>
            <Removal partner={partner} />
          </li>
        ))}
      </ul>
      <h3>{t('settingsAddPartner')}</h3>
      <PartnerForm onCreated={setCreated} />
    </>
  );
}

/** "Remove …", asked once more: the partner's credentials then no longer reach the business. */
function Removal({ partner }: { partner: Partner }) {
  const [asking, setAsking] = useState(false);
  const ask = useRef<HTMLButtonElement>(null);
  const remove = async () => {
    try {
      await call((api) =>
        api.DELETE('/v1/manage/partners/{partner_id}', { params: { path: { partner_id: partner.id } } }),
      );
      dataChanged();
      document.getElementById('settings-title')?.focus();
    } catch (error) {
      report(error);
    }
  };
  return asking ? (
    <Confirm
      question={t('settingsPartnerRemoveQuestion', { name: partner.name })}
      yes={t('settingsPartnerRemoveYes')}
      no={t('settingsPartnerRemoveNo')}
      danger
      onYes={remove}
      onNo={() => setAsking(false)}
      asker={ask}
    />
  ) : (
    <button type="button" class="quiet danger" ref={ask} onClick={() => setAsking(true)}>
      {t('settingsPartnerRemove', { name: partner.name })}
    </button>
  );
}

function PartnerForm({ onCreated }: { onCreated: (created: Created) => void }) {
  const saving = useSaving();
  const [name, setName] = useState('');
  const save = async () => {
    const created = await saving.submit(
      () => call((api) => api.POST('/v1/manage/partners', { body: { name: name.trim() } })),
      t('settingsPartnerAdded'),
    );
    if (created) {
      setName('');
      onCreated(created);
    }
  };
  return (
    <SettingsForm
      saving={saving}
      onSave={save}
      saveLabel={t('settingsAddPartner')}
      shown={(field) => field === 'name'}
    >
      <div class="fields">
        <Field
          field="name"
          label={t('name')}
          errors={saving.errors}
          value={name}
          onValue={setName}
          maxLength={100}
        />
      </div>
    </SettingsForm>
  );
}
