import type { Executor } from '../platform/db.ts';

/** A business by its slug, which is stored in lower case. */
export const findBusinessBySlug = (executor: Executor, slug: string) =>
  executor
    .selectFrom('businesses')
    .select(['id', 'name', 'slug'])
    .where('slug', '=', slug.toLowerCase())
    .executeTakeFirst();

export async function findBusinessTimezone(executor: Executor, businessId: string) {
  const business = await executor
    .selectFrom('businesses')
    .select('timezone')
    .where('id', '=', businessId)
    .executeTakeFirst();
  return business?.timezone;
}
