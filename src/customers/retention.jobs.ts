import { type Db, withTx } from '../platform/db.ts';
import { eraseGuest, guestsPastRetention } from './profiles.queries.ts';

/** Guests erased in one pass; the next pass takes the rest. */
const BATCH = 100;

/**
 * Erases the guests kept past their business's `guest_data_retention_months`, each in a
 * transaction of its own (one guest's erasure holds only that guest's rows), audited as done by
 * `retention`. Answers how many it erased.
 */
export async function eraseGuestsPastRetention(db: Db): Promise<number> {
  const due = await guestsPastRetention(db, BATCH);
  for (const guest of due) {
    await withTx(db, (tx) => eraseGuest(tx, guest.business_id, guest.id, 'retention'));
  }
  return due.length;
}
