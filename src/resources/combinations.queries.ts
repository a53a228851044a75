import { businessRows } from '../platform/business-rows.ts';
import type { Executor } from '../platform/db.ts';
import { keysetPage, type PageRequest, sortedBy } from '../platform/pagination.ts';

export const COMBINATION_COLUMNS = [
  'id',
  'name',
  'resource_ids',
  'capacity_min',
  'capacity_max',
  'is_active',
  'created_at',
] as const;

export interface CombinationRow {
  id: string;
  name: string;
  resource_ids: string[];
  capacity_min: number;
  capacity_max: number;
  is_active: boolean;
  created_at: Date;
}

export type NewCombination = Omit<CombinationRow, 'id' | 'created_at'>;

/** The business's combinations by name, each as `view` makes it. */
export const listCombinations = <T>(
  executor: Executor,
  page: PageRequest,
  view: (row: CombinationRow) => T,
) =>
  keysetPage(
    executor.selectFrom('combinations').select(COMBINATION_COLUMNS).where('business_id', '=', page.owner),
    { name: 'combinations', keys: sortedBy('name', 'text') },
    page,
    view,
  );

const combinationRows = businessRows('combinations', COMBINATION_COLUMNS);

export const insertCombination = combinationRows.insert;

export const updateCombination = (
  executor: Executor,
  businessId: string,
  combinationId: string,
  changes: Partial<CombinationRow>,
) => combinationRows.update(executor, businessId, combinationId, { ...changes, updated_at: new Date() });

export const deleteCombinationRow = combinationRows.delete;

/** A combination of the business, locked for the rest of the transaction. */
export const lockCombination = combinationRows.lock;
