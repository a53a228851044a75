import type { operations } from '@slotwise/sdk';
import { useState } from 'preact/hooks';
import { PARTY_SIZE_MAX } from '../../src/engine/party.ts';
import { call } from '../api.ts';
import { dataChanged, versionOf } from '../changes.ts';
import { t } from '../i18n.ts';
import { useLatest } from '../latest.ts';
import { clearProblem, report } from '../problems.ts';

type WalkIn = operations['listWalkIns']['responses'][200]['content']['application/json']['items'][number];

const nameOf = (entry: WalkIn) => `${entry.first_name ?? ''} ${entry.last_name ?? ''}`.trim();

/** The party as the host calls it: its name, else its size. */
const partyOf = (entry: WalkIn) =>
  nameOf(entry)
    ? `${nameOf(entry)}, ${t('guests', { n: entry.capacity })}`
    : t('queueParty', { n: entry.capacity });

const quoteOf = (minutes: number | null) =>
  minutes === null
    ? t('queueNoTable')
    : minutes === 0
      ? t('queueFreeNow')
      : t('queueWaitMinutes', { n: minutes });

const EMPTY = { capacity: '2', first_name: '', phone: '', email: '' };

/**
 * The host stand's walk-in queue (`#/queue`): a party joins with its size (a name and a phone or
 * email when the guest gives them), waits with the engine's quoted wait, is told its table is
 * ready, and is seated in one step (a checked-in walk-in on a free table that seats it).
 */
export default function QueueScreen() {
  const [queue, setQueue] = useState<WalkIn[] | null>(null);
  const [fields, setFields] = useState(EMPTY);
  const [busy, setBusy] = useState(false);
  const [said, setSaid] = useState('');
  // A booking made, moved or ended anywhere changes when tables free: the quotes follow it.
  const version = versionOf('walkIns', 'bookings');

  useLatest(
    () => call((api) => api.GET('/v1/manage/walk-ins')),
    (answer) => setQueue(answer.items),
    [version],
  );

  const field = (name: keyof typeof EMPTY) => ({
    value: fields[name],
    onInput: (event: { currentTarget: HTMLInputElement }) =>
      setFields({ ...fields, [name]: event.currentTarget.value }),
  });

  /** Runs an action on the queue and says what it did. */
  async function act(work: () => Promise<string>) {
    setBusy(true);
    try {
      const done = await work();
      clearProblem();
      setSaid(done);
      dataChanged('walkIns');
    } catch (error) {
      report(error);
    }
    setBusy(false);
  }

  async function join(event: SubmitEvent) {
    event.preventDefault();
    const given = (value: string) => value.trim() || null;
    await act(async () => {
      const { walk_in } = await call((api) =>
        api.POST('/v1/manage/walk-ins', {
          body: {
            capacity: Number(fields.capacity),
            first_name: given(fields.first_name),
            phone: given(fields.phone),
            email: given(fields.email),
          },
        }),
      );
      setFields(EMPTY);
      return t('queueJoined', { party: partyOf(walk_in), wait: quoteOf(walk_in.quoted_wait_minutes) });
    });
  }

  const path = (entry: WalkIn) => ({ params: { path: { walk_in_id: entry.id } } });
  const seat = (entry: WalkIn) =>
    act(async () => {
      const { booking } = await call((api) =>
        api.POST('/v1/manage/walk-ins/{walk_in_id}/seat', { ...path(entry), body: {} }),
      );
      dataChanged('bookings');
      return t('queueSeated', { party: partyOf(entry), table: booking.resource.name });
    });
  const notify = (entry: WalkIn) =>
    act(async () => {
      await call((api) => api.POST('/v1/manage/walk-ins/{walk_in_id}/notify', path(entry)));
      return t('queueNotified', { party: partyOf(entry) });
    });
  const remove = (entry: WalkIn) =>
    act(async () => {
      await call((api) => api.DELETE('/v1/manage/walk-ins/{walk_in_id}', path(entry)));
      return t('queueRemoved', { party: partyOf(entry) });
    });

  return (
    <div class="queue">
      <h1>{t('queueTitle')}</h1>
      <form class="new-booking queue-join" onSubmit={join} aria-label={t('queueJoin')}>
        <div class="new-guest">
          <label>
            <span>{t('party')}</span>
            <input
              type="number"
              inputMode="numeric"
              min={1}
              max={PARTY_SIZE_MAX}
              required
              {...field('capacity')}
            />
          </label>
          <label>
            <span>{t('queueName')}</span>
            <input maxLength={100} autoComplete="off" {...field('first_name')} />
          </label>
          <label>
            <span>{t('phone')}</span>
            <input type="tel" maxLength={40} autoComplete="off" {...field('phone')} />
          </label>
          <label>
            <span>{t('email')}</span>
            <input type="email" maxLength={254} autoComplete="off" {...field('email')} />
          </label>
        </div>
        <div class="sheet-actions">
          <button type="submit" disabled={busy}>
            {t('queueJoin')}
          </button>
        </div>
      </form>
      <p class="summary" role="status">
        {queue ? t('queueCount', { n: queue.length }) : t('loading')}
      </p>
      <p class="said" role="status">
        {said}
      </p>
      {queue && queue.length > 0 && (
        <ol class="wait-list">
          {queue.map((entry) => (
            <li key={entry.id} aria-labelledby={`queue-${entry.id}`}>
              <h2 id={`queue-${entry.id}`}>
                <span class="wait-position">{entry.position}.</span> {partyOf(entry)}
              </h2>
              <dl>
                <dt>{t('queueQuoted')}</dt>
                <dd>{quoteOf(entry.quoted_wait_minutes)}</dd>
                {(entry.phone || entry.email) && (
                  <>
                    <dt>{entry.phone ? t('phone') : t('email')}</dt>
                    <dd>{entry.phone ?? entry.email}</dd>
                  </>
                )}
                {entry.notified_at && (
                  <>
                    <dt>{t('status')}</dt>
                    <dd>{t('queueToldReady')}</dd>
                  </>
                )}
              </dl>
              <div class="wait-actions">
                <button
                  type="button"
                  disabled={busy}
                  aria-label={t('queueSeatFor', { party: partyOf(entry) })}
                  onClick={() => seat(entry)}
                >
                  {t('queueSeat')}
                </button>
                {(entry.phone || entry.email) && (
                  <button
                    type="button"
                    class="quiet"
                    disabled={busy}
                    aria-label={t('queueNotifyFor', { party: partyOf(entry) })}
                    onClick={() => notify(entry)}
                  >
                    {t('queueNotify')}
                  </button>
                )}
                <button
                  type="button"
                  class="quiet"
                  disabled={busy}
                  aria-label={t('queueRemoveFor', { party: partyOf(entry) })}
                  onClick={() => remove(entry)}
                >
                  {t('waitRemove')}
                </button>
              </div>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
