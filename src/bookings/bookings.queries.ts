import type { Executor } from '../platform/db.ts';

/** The business's smallest and largest party, which every booking's party size stays within. */
export const partyLimits = (executor: Executor, businessId: string) =>
  executor
    .selectFrom('businesses')
    .select(['min_capacity', 'max_capacity'])
    .where('id', '=', businessId)
    .executeTakeFirstOrThrow();
