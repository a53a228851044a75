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

export const insertCombination = (executor: Executor, businessId: string, combination: NewCombination) =>
  executor
    .insertInto('combinations')
    .values({ business_id: businessId, ...combination })
    .returning(COMBINATION_COLUMNS)
    .executeTakeFirstOrThrow();

export const updateCombination = (
  executor: Executor,
  businessId: string,
  combinationId: string,
  changes: Partial<CombinationRow>,
) =>
  executor
    .updateTable('combinations')
    .set({ ...changes, updated_at: new Date() })
    .where('id', '=', combinationId)
    .where('business_id', '=', businessId)
    .returning(COMBINATION_COLUMNS)
    .executeTakeFirstOrThrow();

export const deleteCombinationRow = (executor: Executor, businessId: string, combinationId: string) =>
  executor
    .deleteFrom('combinations')
    .where('id', '=', combinationId)
    .where('business_id', '=', businessId)
    .execute();

/** A combination of the business, locked for the rest of the transaction. */
export const lockCombination = (executor: Executor, businessId: string, combinationId: string) =>
  executor
    .selectFrom('combinations')
    .select(COMBINATION_COLUMNS)
    .where('id', '=', combinationId)
    .where('business_id', '=', businessId)
    .forUpdate()
    .executeTakeFirst();
