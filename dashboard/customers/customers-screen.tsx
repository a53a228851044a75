import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, call } from '../api.ts';
import { versionOf } from '../changes.ts';
import { CsvDownload } from '../download.tsx';
import { t } from '../i18n.ts';
import { useLatest } from '../latest.ts';
import { report } from '../problems.ts';
import type { ScreenProps } from '../router.ts';
import { hrefOf } from '../router.ts';
import {
  type CustomerPage,
  type CustomerRecord,
  type CustomerSummary,
  fullName,
  loadCustomer,
  searchCustomers,
} from './customer-data.ts';
import { CustomerDetail } from './customer-detail.tsx';

/** Long enough to skip the searches of a word half typed, short enough to feel immediate. */
const TYPING_PAUSE_MS = 250;

/** The API's bounds on a search. */
const SEARCH_MIN = 2;
const SEARCH_MAX = 100;

/** What is searched for the text typed: a single character is no search yet, the whole list stays. */
const searchOf = (typed: string) => {
  const text = typed.trim();
  return [...text].length >= SEARCH_MIN ? text : '';
};

/** The search typed, once typing pauses. */
function useSettled(value: string): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), TYPING_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [value]);
  return settled;
}

/** The results of the settled search, more pages on demand, reloaded when data changes. */
function useResults(search: string) {
  const [results, setResults] = useState<{ search: string; items: CustomerSummary[]; next: string | null }>();
  const version = versionOf('bookings');
  useLatest(
    () => searchCustomers(search),
    (page: CustomerPage) => setResults({ search, items: page.items, next: page.next_cursor }),
    [search, version],
  );
  const more = () => {
    if (!results?.next) return;
    searchCustomers(results.search, results.next)
      .then((page) =>
        setResults((shown) =>
          shown?.search === results.search
            ? { search: shown.search, items: [...shown.items, ...page.items], next: page.next_cursor }
            : shown,
        ),
      )
      .catch(report);
  };
  return { results, more };
}

/** The open customer (`#/customers/<id>`), reloaded when data changes; `missing` when there is none such. */
function useCustomer(customerId: string | undefined) {
  const [customer, setCustomer] = useState<CustomerRecord | 'missing'>();
  const version = versionOf('bookings');
  // Another customer opened: nothing is shown until it is loaded (a change of data keeps the shown one meanwhile).
  useEffect(() => setCustomer(undefined), [customerId]);
  useLatest(
    () => (customerId ? loadCustomer(customerId) : null),
    setCustomer,
    [customerId, version],
    (error) => {
      if (error instanceof ApiError && error.status === 404) setCustomer('missing');
      else report(error);
    },
  );
  return customer;
}

/** Customers: a search answering as the host types, the people it finds, and one's history. */
export default function CustomersScreen({ params }: ScreenProps) {
  const openId = params[0];
  const [typed, setTyped] = useState('');
  const search = useSettled(searchOf(typed));
  const { results, more } = useResults(search);
  const customer = useCustomer(openId);
  const searchBox = useRef<HTMLInputElement>(null);
  const lastOpen = useRef<string | undefined>(undefined);

  // Back from a customer, the reader lands on them in the list (or in the search box).
  useEffect(() => {
    if (openId) {
      lastOpen.current = openId;
      return;
    }
    const previous = lastOpen.current;
    if (!previous) return;
    const link = document.querySelector<HTMLAnchorElement>(`[data-customer="${previous}"]`);
    (link ?? searchBox.current)?.focus();
  }, [openId]);

  return (
    <div class={`customers${openId ? ' has-open' : ''}`}>
      <h1>{t('navCustomers')}</h1>
      <div class="customers-body">
        <div class="customers-find">
          <search class="customers-search">
            <label for="customer-search">{t('customersSearch')}</label>
            <input
              id="customer-search"
              ref={searchBox}
              type="search"
              value={typed}
              maxLength={SEARCH_MAX}
              autoComplete="off"
              spellcheck={false}
              aria-describedby="customer-search-hint"
              aria-controls="customer-results"
              onInput={(event) => setTyped(event.currentTarget.value)}
            />
            <small id="customer-search-hint">{t('customersSearchHint')}</small>
          </search>
          {/* Said once the results are those of the text typed, never of a search left behind. */}
          <p role="status" class="customers-count">
            {results && results.search === searchOf(typed) ? countText(results) : ''}
          </p>
          <CsvDownload
            filename="customers.csv"
            load={() => {
              const search = searchOf(typed);
              return call((api) =>
                api.GET('/v1/manage/customers.csv', {
                  params: { query: search ? { search } : {} },
                  parseAs: 'blob',
                }),
              );
            }}
          />
          <ul
            id="customer-results"
            class="customer-list"
            aria-label={t('customersResults')}
            aria-busy={results?.search !== searchOf(typed)}
          >
            {results?.items.map((item) => (
              <li key={item.id}>
                <a
                  href={hrefOf('customers', item.id)}
                  data-customer={item.id}
                  aria-current={item.id === openId ? 'true' : undefined}
                >
                  <strong>{fullName(item)}</strong>
                  <span>{item.phone}</span>
                  {item.email && <span class="customer-email">{item.email}</span>}
                </a>
              </li>
            ))}
          </ul>
          {results?.next && (
            <button type="button" class="quiet" onClick={more}>
              {t('customersMore')}
            </button>
          )}
        </div>
        {openId && (
          <div class="customers-open">
            <a class="button customers-back" href={hrefOf('customers')}>
              <span aria-hidden="true">← </span>
              {t('customersBack')}
            </a>
            {customer === 'missing' ? (
              <p>{t('customersMissing')}</p>
            ) : customer ? (
              <CustomerDetail customer={customer} />
            ) : (
              <p role="status">{t('loading')}</p>
            )}
          </div>
        )}
      </div>
    </div>
  );
}

function countText(results: { items: unknown[]; next: string | null }): string {
  if (results.next) return t('customersCountMore', { n: results.items.length });
  if (results.items.length === 0) return t('customersNone');
  return t('customersCount', { n: results.items.length });
}
