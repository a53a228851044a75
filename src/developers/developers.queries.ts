import { sql } from 'kysely';
import type { Executor, Tx } from '../platform/db.ts';
import { keysetPage, type PageRequest, sortedBy } from '../platform/pagination.ts';

const byEmail = (email: string) => sql<boolean>`lower(email) = ${email.toLowerCase()}`;

export function findDeveloperByEmail(executor: Executor, email: string) {
  return executor
    .selectFrom('developers')
    .select(['id', 'email', 'password_hash'])
    .where(byEmail(email))
    .executeTakeFirst();
}

export function findDeveloper(executor: Executor, developerId: string) {
  return executor
    .selectFrom('developers')
    .select(['id', 'email'])
    .where('id', '=', developerId)
    .executeTakeFirst();
}

export function insertDeveloper(
  executor: Executor,
  values: { email: string; password_hash: string; first_name: string; last_name: string },
) {
  return executor.insertInto('developers').values(values).returningAll().executeTakeFirstOrThrow();
}

export function insertBusiness(
  executor: Executor,
  values: { developer_id: string; name: string; slug: string; business_type: string | null; is_dev: boolean },
) {
  return executor.insertInto('businesses').values(values).returningAll().executeTakeFirstOrThrow();
}

/** Until the transaction ends, other transactions asking for the same base slug wait here. */
export async function lockSlug(tx: Tx, base: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtext(${`business-slug:${base}`}))`.execute(tx);
}

/** Slugs in use that are `base` or start with `base-`. */
export async function slugsLike(executor: Executor, base: string): Promise<string[]> {
  const rows = await executor
    .selectFrom('businesses')
    .select('slug')
    .where((eb) => eb.or([eb('slug', '=', base), eb('slug', 'like', `${base}-%`)]))
    .execute();
  return rows.map((row) => row.slug);
}

/** A page of the developer's businesses, oldest first; the page's owner is the developer. */
export const listBusinessesOf = (executor: Executor, page: PageRequest) =>
  keysetPage(
    executor
      .selectFrom('businesses')
      .select(['id', 'name', 'slug', 'business_type', 'is_dev', 'created_at'])
      .where('developer_id', '=', page.owner),
    { name: 'businesses', keys: sortedBy('created_at', 'timestamptz') },
    page,
    (row) => ({ ...row, business_id: row.id, created_at: row.created_at.toISOString() }),
  );

export function findBusinessInfo(executor: Executor, businessId: string) {
  return executor
    .selectFrom('businesses')
    .select(['id', 'name', 'slug'])
    .where('id', '=', businessId)
    .executeTakeFirst();
}
