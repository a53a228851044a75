import type { Insertable } from 'kysely';
import type { Executor } from '../platform/db.ts';
import { keysetPage, type PageRequest } from '../platform/pagination.ts';
import type { DB } from '../schema.ts';

/** What a key's listing shows: never the key nor its hash. */
const VIEW_COLUMNS = [
  'id',
  'name',
  'prefix',
  'scopes',
  'environment',
  'rate_limit_per_minute',
  'is_active',
  'created_at',
  'last_used_at',
] as const;

export function insertApiKey(executor: Executor, values: Insertable<DB['api_keys']>) {
  return executor.insertInto('api_keys').values(values).returning(VIEW_COLUMNS).executeTakeFirstOrThrow();
}

/** A page of the business's keys, oldest first. */
export const listApiKeysOf = (executor: Executor, page: PageRequest) =>
  keysetPage(
    executor.selectFrom('api_keys').select(VIEW_COLUMNS).where('business_id', '=', page.owner),
    {
      name: 'api_keys',
      keys: [
        { ref: 'created_at', type: 'timestamptz' },
        { ref: 'id', type: 'uuid' },
      ],
    },
    page,
    (row) => row,
  );

/** Deactivates the business's key; undefined when the business has no such key. */
export function deactivateApiKey(executor: Executor, businessId: string, keyId: string) {
  return executor
    .updateTable('api_keys')
    .set({ is_active: false })
    .where('id', '=', keyId)
    .where('business_id', '=', businessId)
    .returning(VIEW_COLUMNS)
    .executeTakeFirst();
}

export async function isSandboxBusiness(executor: Executor, businessId: string): Promise<boolean> {
  const business = await executor
    .selectFrom('businesses')
    .select('is_dev')
    .where('id', '=', businessId)
    .executeTakeFirstOrThrow();
  return business.is_dev;
}
