import { sql } from 'kysely';
import type { Executor } from '../platform/db.ts';
import { afterRow } from '../platform/pagination.ts';

const STAFF_COLUMNS = ['id', 'email', 'role', 'created_at'] as const;

export function findUserByEmail(executor: Executor, email: string) {
  return executor
    .selectFrom('users')
    .select(['id', 'email', 'role', 'business_id', 'password_hash'])
    .where(sql<boolean>`lower(email) = ${email.toLowerCase()}`)
    .executeTakeFirst();
}

export function findUser(executor: Executor, userId: string) {
  return executor
    .selectFrom('users')
    .select(['id', 'email', 'role', 'business_id'])
    .where('id', '=', userId)
    .executeTakeFirst();
}

/** A page of the business's dashboard users, oldest first; `limit + 1` rows tell whether more exist. */
export function listUsersOf(
  executor: Executor,
  businessId: string,
  page: { limit: number; afterId: string | null },
) {
  let query = executor
    .selectFrom('users')
    .select(STAFF_COLUMNS)
    .where('business_id', '=', businessId)
    .orderBy('created_at')
    .orderBy('id')
    .limit(page.limit + 1);
  if (page.afterId) query = query.where(afterRow('users', page.afterId));
  return query.execute();
}

export function insertUser(
  executor: Executor,
  values: { business_id: string; email: string; role: string; password_hash: string },
) {
  return executor.insertInto('users').values(values).returning(STAFF_COLUMNS).executeTakeFirstOrThrow();
}

export function lockUserOf(executor: Executor, businessId: string, userId: string) {
  return executor
    .selectFrom('users')
    .select(STAFF_COLUMNS)
    .where('id', '=', userId)
    .where('business_id', '=', businessId)
    .forUpdate()
    .executeTakeFirst();
}

export function setUserRole(executor: Executor, userId: string, role: string) {
  return executor
    .updateTable('users')
    .set({ role })
    .where('id', '=', userId)
    .returning(STAFF_COLUMNS)
    .executeTakeFirstOrThrow();
}

export function deleteUserOf(executor: Executor, businessId: string, userId: string) {
  return executor
    .deleteFrom('users')
    .where('id', '=', userId)
    .where('business_id', '=', businessId)
    .returning(STAFF_COLUMNS)
    .executeTakeFirst();
}

export async function revokeRefreshTokensOf(executor: Executor, subjectId: string, now: Date): Promise<void> {
  await executor
    .updateTable('refresh_tokens')
    .set({ revoked_at: now })
    .where('subject_id', '=', subjectId)
    .where('revoked_at', 'is', null)
    .execute();
}
