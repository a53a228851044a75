import { sql } from 'kysely';
import type { Executor } from '../platform/db.ts';
import { keysetPage, type PageRequest } from '../platform/pagination.ts';
import type { MembershipRole } from '../schema.ts';

/** A member as the staff list shows them: the person's id and email, the membership's role and date. */
const MEMBER_COLUMNS = ['users.id', 'users.email', 'memberships.role', 'memberships.created_at'] as const;

export function findUserByEmail(executor: Executor, email: string) {
  return executor
    .selectFrom('users')
    .select(['id', 'email', 'password_hash'])
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .executeTakeFirst();
}

/** The user's memberships, oldest first, with each business's name. */
export function membershipsOf(executor: Executor, userId: string) {
  return executor
    .selectFrom('memberships')
    .innerJoin('businesses', 'businesses.id', 'memberships.business_id')
    .select(['businesses.id', 'businesses.name', 'memberships.role'])
    .where('memberships.user_id', '=', userId)
    .orderBy('memberships.created_at')
    .orderBy('memberships.business_id')
    .execute();
}

/** The user with their role in the business; undefined when they are not (or no longer) a member. */
export function findMember(executor: Executor, businessId: string, userId: string) {
  return executor
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['users.id', 'users.email', 'memberships.role'])
    .where('memberships.user_id', '=', userId)
    .where('memberships.business_id', '=', businessId)
    .executeTakeFirst();
}

/** A page of the business's members, oldest membership first. */
export const listMembersOf = (executor: Executor, page: PageRequest) =>
  keysetPage(
    executor
      .selectFrom('memberships')
      .innerJoin('users', 'users.id', 'memberships.user_id')
      .select([...MEMBER_COLUMNS, 'memberships.id as membership_id'])
      .where('memberships.business_id', '=', page.owner),
    {
      name: 'staff',
      keys: [
        { ref: 'memberships.created_at', type: 'timestamptz' },
        { ref: 'memberships.id', type: 'uuid' },
      ],
    },
    page,
    (row) => row,
  );

/**
 * The user with this (lower-case) email, created with `passwordHash` when there is none; an
 * existing user keeps their password. Either way the row stays locked until the transaction ends,
 * so a concurrent removal of the user's last membership cannot delete it meanwhile.
 */
export function upsertUser(executor: Executor, email: string, passwordHash: string) {
  return executor
    .insertInto('users')
    .values({ email, password_hash: passwordHash })
    .onConflict((oc) =>
      oc.expression(sql`lower(email)`).doUpdateSet((eb) => ({ email: eb.ref('users.email') })),
    )
    .returning(['id', 'email'])
    .executeTakeFirstOrThrow();
}

/** Undefined when the user is already a member of the business. */
export function insertMembership(
  executor: Executor,
  values: { user_id: string; business_id: string; role: MembershipRole },
) {
  return executor
    .insertInto('memberships')
    .values(values)
    .onConflict((oc) => oc.columns(['user_id', 'business_id']).doNothing())
    .returning(['role', 'created_at'])
    .executeTakeFirst();
}

export function lockMember(executor: Executor, businessId: string, userId: string) {
  return executor
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(MEMBER_COLUMNS)
    .where('memberships.user_id', '=', userId)
    .where('memberships.business_id', '=', businessId)
    .forUpdate('memberships')
    .executeTakeFirst();
}

export async function setMemberRole(
  executor: Executor,
  businessId: string,
  userId: string,
  role: MembershipRole,
): Promise<void> {
  await executor
    .updateTable('memberships')
    .set({ role })
    .where('user_id', '=', userId)
    .where('business_id', '=', businessId)
    .execute();
}

export async function lockUser(executor: Executor, userId: string): Promise<void> {
  await executor.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute();
}

export async function deleteMembership(
  executor: Executor,
  businessId: string,
  userId: string,
): Promise<void> {
  await executor
    .deleteFrom('memberships')
    .where('user_id', '=', userId)
    .where('business_id', '=', businessId)
    .execute();
}

/** Deletes the user if no membership is left. Lock the user first (`lockUser`), or an invitation could race it. */
export async function deleteUserWithoutMemberships(executor: Executor, userId: string): Promise<void> {
  await executor
    .deleteFrom('users')
    .where('id', '=', userId)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('memberships').select('id').where('memberships.user_id', '=', userId))),
    )
    .execute();
}

/** Ends the user's sessions in the business: their refresh tokens for it stop working. */
export async function revokeRefreshTokensOf(
  executor: Executor,
  userId: string,
  businessId: string,
  now: Date,
): Promise<void> {
  await executor
    .updateTable('refresh_tokens')
    .set({ revoked_at: now })
    .where('subject_kind', '=', 'user')
    .where('subject_id', '=', userId)
    .where('business_id', '=', businessId)
    .where('revoked_at', 'is', null)
    .execute();
}
