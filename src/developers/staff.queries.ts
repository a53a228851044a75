import { sql } from 'kysely';
import type { Executor, Tx } from '../platform/db.ts';
import { keysetPage, type PageRequest, sortedBy } from '../platform/pagination.ts';
import type { MembershipRole, MembershipStatus } from '../schema.ts';

/** A member as the staff list shows them: the person's id and email, the membership's role, status and dates. */
const MEMBER_COLUMNS = [
  'users.id',
  'users.email',
  'memberships.role',
  'memberships.status',
  'memberships.invited_at',
  'memberships.created_at',
] as const;

export function findUserByEmail(executor: Executor, email: string) {
  return executor
    .selectFrom('users')
    .select(['id', 'email', 'password_hash', 'session_epoch'])
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .executeTakeFirst();
}

/** The user's active memberships, oldest first, with each business's name. */
export function membershipsOf(executor: Executor, userId: string) {
  return executor
    .selectFrom('memberships')
    .innerJoin('businesses', 'businesses.id', 'memberships.business_id')
    .select(['businesses.id', 'businesses.name', 'memberships.role'])
    .where('memberships.user_id', '=', userId)
    .where('memberships.status', '=', 'active')
    .orderBy('memberships.created_at')
    .orderBy('memberships.business_id')
    .execute();
}

/**
 * The user with their role in the business; undefined when they are not (or no longer, or not yet:
 * an invitation not accepted) an active member.
 */
export function findMember(executor: Executor, businessId: string, userId: string) {
  return executor
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['users.id', 'users.email', 'users.session_epoch', 'memberships.role'])
    .where('memberships.user_id', '=', userId)
    .where('memberships.business_id', '=', businessId)
    .where('memberships.status', '=', 'active')
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
    { name: 'staff', keys: sortedBy('memberships.created_at', 'timestamptz', 'memberships.id') },
    page,
  );

/**
 * The user with this (lower-case) email, created with `passwordHash` when there is none (`created`);
 * an existing user keeps their password. Either way the row stays locked until the transaction
 * ends, so a concurrent removal of the user's last membership cannot delete it meanwhile.
 */
export function upsertUser(executor: Executor, email: string, passwordHash: string) {
  return (
    executor
      .insertInto('users')
      .values({ email, password_hash: passwordHash })
      .onConflict((oc) =>
        oc.expression(sql`lower(email)`).doUpdateSet((eb) => ({ email: eb.ref('users.email') })),
      )
      // A row the statement inserted has no deleting transaction yet; an updated one has this one.
      .returning(['id', 'email', sql<boolean>`xmax = 0`.as('created')])
      .executeTakeFirstOrThrow()
  );
}

/** Undefined when the user is already a member of the business (invited or active). */
export function insertMembership(
  executor: Executor,
  values: {
    user_id: string;
    business_id: string;
    role: MembershipRole;
    status: MembershipStatus;
    invited_at: Date;
    invite_token_hash: string;
    invite_expires_at: Date;
    seeded_password_hash: string | null;
  },
) {
  return executor
    .insertInto('memberships')
    .values(values)
    .onConflict((oc) => oc.columns(['user_id', 'business_id']).doNothing())
    .returning(['role', 'status', 'invited_at', 'created_at'])
    .executeTakeFirst();
}

/** A new link for an invited membership: the previous token no longer matches. */
export async function renewInvitation(
  executor: Executor,
  businessId: string,
  userId: string,
  invitation: { invite_token_hash: string; invite_expires_at: Date; invited_at: Date },
): Promise<void> {
  await executor
    .updateTable('memberships')
    .set(invitation)
    .where('user_id', '=', userId)
    .where('business_id', '=', businessId)
    .where('status', '=', 'invited')
    .execute();
}

/** The one rule of a link that works: the invited membership with this token, not expired. */
const workingInvitation = (executor: Executor, tokenHash: string, now: Date) =>
  executor
    .selectFrom('memberships')
    .where('memberships.invite_token_hash', '=', tokenHash)
    .where('memberships.status', '=', 'invited')
    .where('memberships.invite_expires_at', '>', now);

/** The invited membership whose link has this token, unexpired, locked; undefined otherwise. */
export function lockInvitation(executor: Executor, tokenHash: string, now: Date) {
  return workingInvitation(executor, tokenHash, now)
    .select(['memberships.user_id', 'memberships.business_id', 'memberships.role'])
    .forUpdate()
    .executeTakeFirst();
}

/** What the page of a working link shows: the business's name, the role and the invited email. */
export function findInvitation(executor: Executor, tokenHash: string, now: Date) {
  return workingInvitation(executor, tokenHash, now)
    .innerJoin('businesses', 'businesses.id', 'memberships.business_id')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['businesses.name as business_name', 'memberships.role', 'users.email'])
    .executeTakeFirst();
}

/** Makes an invited membership active; its link and its seeded password are spent. */
export async function activateMembership(
  executor: Executor,
  businessId: string,
  userId: string,
): Promise<void> {
  await executor
    .updateTable('memberships')
    .set({ status: 'active', invite_token_hash: null, invite_expires_at: null, seeded_password_hash: null })
    .where('user_id', '=', userId)
    .where('business_id', '=', businessId)
    .execute();
}

/** The user's invited memberships whose invitation created the account with a password, oldest first. */
export function seededInvitationsOf(executor: Executor, userId: string) {
  return executor
    .selectFrom('memberships')
    .select(['business_id', 'seeded_password_hash'])
    .where('user_id', '=', userId)
    .where('status', '=', 'invited')
    .where('seeded_password_hash', 'is not', null)
    .orderBy('created_at')
    .execute();
}

/**
 * Makes an invited membership active by its seeded password: only while it is still invited with
 * that seed (not withdrawn, joined or re-invited meanwhile). Answers whether it did.
 */
export async function joinBySeededPassword(
  executor: Executor,
  businessId: string,
  userId: string,
  seededPasswordHash: string,
): Promise<boolean> {
  const joined = await executor
    .updateTable('memberships')
    .set({ status: 'active', invite_token_hash: null, invite_expires_at: null, seeded_password_hash: null })
    .where('user_id', '=', userId)
    .where('business_id', '=', businessId)
    .where('status', '=', 'invited')
    .where('seeded_password_hash', '=', seededPasswordHash)
    .executeTakeFirst();
  return joined.numUpdatedRows > 0n;
}

/** Sets the user's password and ends every session they have: older access tokens stop working. */
export function setPasswordEndingSessions(executor: Executor, userId: string, passwordHash: string) {
  return executor
    .updateTable('users')
    .set((eb) => ({ password_hash: passwordHash, session_epoch: eb('session_epoch', '+', 1) }))
    .where('id', '=', userId)
    .returning(['id', 'email', 'session_epoch'])
    .executeTakeFirstOrThrow();
}

/** Revokes every refresh token of the user, in all their businesses. */
export async function revokeAllRefreshTokensOf(executor: Executor, userId: string, now: Date): Promise<void> {
  await executor
    .updateTable('refresh_tokens')
    .set({ revoked_at: now })
    .where('subject_kind', '=', 'user')
    .where('subject_id', '=', userId)
    .where('revoked_at', 'is', null)
    .execute();
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

/** The business an invitation is sent for: its name, and the developer whose limit it counts against. */
export function findInvitingBusiness(executor: Executor, businessId: string) {
  return executor
    .selectFrom('businesses')
    .select(['name', 'developer_id'])
    .where('id', '=', businessId)
    .executeTakeFirstOrThrow();
}

/**
 * Makes the developer's invitations take turns until the transaction ends, so that concurrent ones
 * (through any process) each count those sent before them.
 */
export async function lockInvitationSends(tx: Tx, developerId: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtext(${`invitations:${developerId}`}))`.execute(tx);
}

/** When each invitation of the developer's businesses since `since` was sent, and by which business, oldest first. */
export function invitationSendsSince(executor: Executor, developerId: string, since: Date) {
  return executor
    .selectFrom('invitation_sends')
    .select(['business_id', 'sent_at'])
    .where('developer_id', '=', developerId)
    .where('sent_at', '>', since)
    .orderBy('sent_at')
    .execute();
}

export async function insertInvitationSend(
  executor: Executor,
  values: { developer_id: string; business_id: string; message_id: string; sent_at: Date },
): Promise<void> {
  await executor.insertInto('invitation_sends').values(values).execute();
}

/** Forgets the developer's invitations sent before `before`, which no limit counts any more. */
export async function deleteInvitationSendsBefore(
  executor: Executor,
  developerId: string,
  before: Date,
): Promise<void> {
  await executor
    .deleteFrom('invitation_sends')
    .where('developer_id', '=', developerId)
    .where('sent_at', '<=', before)
    .execute();
}
