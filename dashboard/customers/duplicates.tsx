/**
 * The profiles that are likely the same guest as the one open (the same email, or the same
 * phone typed with or without the country code), each mergeable into it after a question: a
 * merge moves the other's bookings here and cannot be undone.
 */
import { useState } from 'preact/hooks';
import { call } from '../api.ts';
import { dataChanged, versionOf } from '../changes.ts';
import { t } from '../i18n.ts';
import { useLatest } from '../latest.ts';
import { report } from '../problems.ts';
import { type CustomerRecord, fullName } from './customer-data.ts';

const loadDuplicates = (customerId: string) =>
  call((api) =>
    api.GET('/v1/manage/customers/{customer_id}/duplicates', {
      params: { path: { customer_id: customerId } },
    }),
  );

type Duplicate = Awaited<ReturnType<typeof loadDuplicates>>['items'][number];

export function Duplicates({ customer }: { customer: CustomerRecord }) {
  const [found, setFound] = useState<{ of: string; items: Duplicate[] } | null>(null);
  const [asking, setAsking] = useState<string | null>(null);
  const [said, setSaid] = useState('');
  const version = versionOf('bookings');
  useLatest(
    () => loadDuplicates(customer.id),
    (answer) => setFound({ of: customer.id, items: answer.items }),
    [customer.id, version],
  );
  const items = found?.of === customer.id ? found.items : [];
  const merge = async (duplicate: Duplicate) => {
    try {
      await call((api) =>
        api.POST('/v1/manage/customers/{customer_id}/merge', {
          params: { path: { customer_id: duplicate.id } },
          body: { into: customer.id },
        }),
      );
      setAsking(null);
      setSaid(t('duplicateMerged', { name: fullName(duplicate) }));
      dataChanged('bookings');
    } catch (error) {
      report(error);
    }
  };
  if (!items.length && !said) return null;
  return (
    <section class="duplicates" aria-labelledby="duplicates-title">
      <h3 id="duplicates-title">{t('duplicatesTitle')}</h3>
      <ul>
        {items.map((duplicate) => (
          <li key={duplicate.id}>
            <span>
              <strong>{fullName(duplicate)}</strong>,{' '}
              {[duplicate.phone, duplicate.email].filter(Boolean).join(', ')} (
              {duplicate.match
                .map((match) => (match === 'email' ? t('duplicateSameEmail') : t('duplicateSamePhone')))
                .join(', ')}
              )
            </span>
            {asking === duplicate.id ? (
              <span class="merge-question">
                <span>{t('duplicateMergeQuestion', { name: fullName(duplicate) })}</span>{' '}
                <button type="button" onClick={() => void merge(duplicate)}>
                  {t('duplicateMergeYes')}
                </button>{' '}
                <button type="button" class="quiet" onClick={() => setAsking(null)}>
                  {t('duplicateMergeNo')}
                </button>
              </span>
            ) : (
              <button type="button" class="quiet" onClick={() => setAsking(duplicate.id)}>
                {t('duplicateMerge', { name: fullName(duplicate) })}
              </button>
            )}
          </li>
        ))}
      </ul>
      <p role="status">{said}</p>
    </section>
  );
}
