import { type InsertObject, sql } from 'kysely';
import type { Executor } from '../platform/db.ts';
import { keysetPage, type PageRequest, sortedBy } from '../platform/pagination.ts';
import type { DB } from '../schema.ts';

/** What a key's listing is made from: never a secret key nor a hash (`public_key` is only a publishable key's). */
const VIEW_COLUMNS = [
  'id',
  'name',
  'type',
  'prefix',
  'public_key',
  'scopes',
  'environment',
  'allowed_origins',
  'is_default',
  'rate_limit_per_minute',
  'is_active',
  'created_at',
  'last_used_at',
] as const;

/**
 * Stores a key. Its `created_at` is the time of the insert, not of the transaction, and after the
 * business's latest key: keys made together (a business's first key, then its default publishable
 * key) list in the order they were made, also on PGlite, whose clock counts whole milliseconds.
 */
export function insertApiKey(executor: Executor, values: Omit<InsertObject<DB, 'api_keys'>, 'created_at'>) {
  return executor
    .insertInto('api_keys')
    .values({
      ...values,
      created_at: sql<Date>`greatest(clock_timestamp(), (
        SELECT max(created_at) + interval '1 microsecond' FROM api_keys WHERE business_id = ${values.business_id}))`,
    })
    .returning(VIEW_COLUMNS)
    .executeTakeFirstOrThrow();
}

/** A page of the business's keys, oldest first. */
export const listApiKeysOf = (executor: Executor, page: PageRequest) =>
  keysetPage(
    executor.selectFrom('api_keys').select(VIEW_COLUMNS).where('business_id', '=', page.owner),
    { name: 'api_keys', keys: sortedBy('created_at', 'timestamptz') },
    page,
  );

/** The business's key, locked for the rest of the transaction; undefined when it has no such key. */
export function lockApiKey(executor: Executor, businessId: string, keyId: string) {
  return executor
    .selectFrom('api_keys')
    .select(VIEW_COLUMNS)
    .where('id', '=', keyId)
    .where('business_id', '=', businessId)
    .forUpdate()
    .executeTakeFirst();
}

/** Deactivates the business's key, which stops being its default; undefined when it has no such key. */
export function deactivateApiKey(executor: Executor, businessId: string, keyId: string) {
  return executor
    .updateTable('api_keys')
    .set({ is_active: false, is_default: false })
    .where('id', '=', keyId)
    .where('business_id', '=', businessId)
    .returning(VIEW_COLUMNS)
    .executeTakeFirst();
}

/** The business's active publishable keys: the default one in full, and every key's origins. */
export function findActivePublishableKeys(executor: Executor, businessId: string) {
  return executor
    .selectFrom('api_keys')
    .select(['public_key', 'is_default', 'allowed_origins'])
    .where('business_id', '=', businessId)
    .where('type', '=', 'publishable')
    .where('is_active', '=', true)
    .execute();
}

export async function isSandboxBusiness(executor: Executor, businessId: string): Promise<boolean> {
  const business = await executor
    .selectFrom('businesses')
    .select('is_dev')
    .where('id', '=', businessId)
    .executeTakeFirstOrThrow();
  return business.is_dev;
}
