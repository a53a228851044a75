import { businessRows } from '../platform/business-rows.ts';
import type { Executor } from '../platform/db.ts';
import { keysetPage, type PageRequest, sortedBy } from '../platform/pagination.ts';

export const BLACKOUT_COLUMNS = ['id', 'start_date', 'end_date', 'reason', 'created_at'] as const;

export interface BlackoutRow {
  id: string;
  start_date: string;
  end_date: string;
  reason: string | null;
  created_at: Date;
}

/** Every range of the business, past ones included, by start date, then id, each as `view` makes it. */
export const listBlackouts = <T>(executor: Executor, page: PageRequest, view: (row: BlackoutRow) => T) =>
  keysetPage(
    executor.selectFrom('blackout_dates').select(BLACKOUT_COLUMNS).where('business_id', '=', page.owner),
    { name: 'blackout_dates', keys: sortedBy('start_date', 'date') },
    page,
    view,
  );

const blackoutRows = businessRows('blackout_dates', BLACKOUT_COLUMNS);

export const insertBlackout = blackoutRows.insert;

/** A range of the business, locked for the rest of the transaction. */
export const lockBlackout = blackoutRows.lock;

export const updateBlackout = blackoutRows.update;

/** Deletes a range of the business; the removed row, or undefined when there was none. */
export const deleteBlackout = blackoutRows.delete;

/** Ranges that end on `date` or later, by start date: what a booking widget still needs to show. */
export async function findBlackoutsEndingFrom(executor: Executor, businessId: string, date: string) {
  return executor
    .selectFrom('blackout_dates')
    .select(['start_date', 'end_date', 'reason'])
    .where('business_id', '=', businessId)
    .where('end_date', '>=', date)
    .orderBy('start_date')
    .orderBy('id')
    .execute();
}
