/**
 * The open business's live updates: one `GET /v1/manage/stream` (through `stream.ts`) while signed
 * in, turned into `dataChanged()` of the kinds of data the events touched. A burst of changes (a
 * party moved holds two tables, a deposit moves with its booking) reloads once, 200 ms after the
 * last; every (re)opening reloads everything, since the server replays nothing missed while the
 * stream was down.
 */
import { signal } from '@preact/signals';
import { freshAccessToken, type Session } from './api.ts';
import { type DataKind, dataChanged, kindOfEvent } from './changes.ts';
import { openStream, type StreamState } from './stream.ts';

const SETTLE_MS = 200;

export const liveState = signal<StreamState>('connecting');

/** Follows `current`'s business until the returned function is called. */
export function followBusiness(current: Pick<Session, 'kind' | 'businessId'>): () => void {
  let settle: ReturnType<typeof setTimeout> | undefined;
  const touched = new Set<DataKind>();
  const settled = () => {
    dataChanged(...touched);
    touched.clear();
  };
  const stream = openStream({
    baseUrl: location.origin,
    token: freshAccessToken,
    businessId: current.kind === 'developer' ? current.businessId : undefined,
    onEvent: (event) => {
      if (event.business_id !== current.businessId) return;
      touched.add(kindOfEvent(event.type));
      clearTimeout(settle);
      settle = setTimeout(settled, SETTLE_MS);
    },
    onState: (state) => {
      liveState.value = state;
      if (state === 'open') dataChanged();
    },
  });
  return () => {
    clearTimeout(settle);
    stream.close();
  };
}
