import { recordAudit } from '../audit/audit.ts';
import { hashPassword, type Principal, type TokenService } from '../platform/auth.ts';
import type { Db, Executor, Tx } from '../platform/db.ts';
import { AppError, conflict, notFound } from '../platform/errors.ts';
import type { Page, PageRequest } from '../platform/pagination.ts';
import type { MembershipRole } from '../schema.ts';
import { checkPassword, issueTokens, type TokenPair, underLoginLimit } from './sessions.service.ts';
import {
  deleteMembership,
  deleteUserWithoutMemberships,
  findMember,
  findUserByEmail,
  insertMembership,
  listMembersOf,
  lockMember,
  lockUser,
  membershipsOf,
  revokeRefreshTokensOf,
  setMemberRole,
  upsertUser,
} from './staff.queries.ts';

type Acting = Principal & { businessId: string };

export interface StaffView {
  id: string;
  email: string;
  role: MembershipRole;
  created_at: string;
}

const toStaffView = (row: {
  id: string;
  email: string;
  role: MembershipRole;
  created_at: Date;
}): StaffView => ({
  id: row.id,
  email: row.email,
  role: row.role,
  created_at: row.created_at.toISOString(),
});

/** A dashboard session: the token pair of one business, and every business the user may switch to. */
export interface DashboardSession extends TokenPair {
  businesses: { id: string; name: string; role: MembershipRole }[];
}

async function sessionFor(
  executor: Executor,
  tokens: TokenService,
  user: { id: string; email: string },
  current: { id: string; role: MembershipRole },
  businesses: DashboardSession['businesses'],
): Promise<DashboardSession> {
  const pair = await issueTokens(executor, tokens, 'user', {
    sub: user.id,
    email: user.email,
    role: current.role,
    businessId: current.id,
  });
  return { ...pair, businesses };
}

/**
 * Logs a dashboard user in to their oldest membership; `businesses` lists all of them, oldest
 * first. `now` is when the attempt happens, for the per-account login limit.
 */
export async function logInUser(
  db: Db,
  tokens: TokenService,
  input: { email: string; password: string },
  now: Date,
): Promise<DashboardSession> {
  return underLoginLimit(db, { kind: 'user', email: input.email }, now, async () => {
    const user = await findUserByEmail(db, input.email);
    await checkPassword(user?.password_hash, input.password);
    const businesses = await membershipsOf(db, user!.id);
    // Only a removal racing this login leaves a user without memberships: as if they did not exist.
    if (businesses.length === 0) throw new AppError('invalid_token', 'email or password is wrong');
    return sessionFor(db, tokens, user!, businesses[0]!, businesses);
  });
}

/** A session of another of the user's businesses; one they are not a member of is 404. */
export async function switchBusiness(
  executor: Executor,
  tokens: TokenService,
  principal: Principal,
  businessId: string,
): Promise<DashboardSession> {
  const member = await findMember(executor, businessId, principal.userId!);
  if (!member) throw notFound('business');
  const businesses = await membershipsOf(executor, member.id);
  return sessionFor(executor, tokens, member, { id: businessId, role: member.role }, businesses);
}

export async function listStaff(executor: Executor, page: PageRequest): Promise<Page<StaffView>> {
  const rows = await listMembersOf(executor, page);
  return { ...rows, items: rows.items.map(toStaffView) };
}

/**
 * Adds the email to the business. An email that already has an account (in any business) gains a
 * membership and keeps its password; the answer is the same as for a new person, and the given
 * password is hashed either way, so the inviting business cannot tell the two apart.
 */
export interface StaffInvite {
  email: string;
  role: MembershipRole;
  passwordHash: string;
}

/**
 * Hashes the invite's password before its transaction: it takes tens of milliseconds, which no
 * lock (and on the embedded database, no other request) should wait for.
 */
export async function prepareInvite(input: {
  email: string;
  role: MembershipRole;
  password: string;
}): Promise<StaffInvite> {
  return {
    email: input.email.toLowerCase(),
    role: input.role,
    passwordHash: await hashPassword(input.password),
  };
}

export async function inviteStaff(tx: Tx, principal: Acting, invite: StaffInvite): Promise<StaffView> {
  const user = await upsertUser(tx, invite.email, invite.passwordHash);
  const membership = await insertMembership(tx, {
    user_id: user.id,
    business_id: principal.businessId,
    role: invite.role,
  });
  if (!membership) throw conflict('a dashboard user with this email exists');
  const created = toStaffView({ ...user, ...membership });
  await recordAudit(tx, principal, {
    action: 'staff.invited',
    entityType: 'user',
    entityId: created.id,
    after: created,
  });
  return created;
}

export async function changeStaffRole(
  tx: Tx,
  principal: Acting,
  userId: string,
  role: MembershipRole,
): Promise<StaffView> {
  const member = await lockMember(tx, principal.businessId, userId);
  if (!member) throw notFound('user');
  await setMemberRole(tx, principal.businessId, userId, role);
  const before = toStaffView(member);
  const after = { ...before, role };
  await recordAudit(tx, principal, {
    action: 'staff.role_changed',
    entityType: 'user',
    entityId: userId,
    before,
    after,
  });
  return after;
}

/**
 * Ends the user's membership of the business: their tokens for it stop working at once. A user
 * left without any membership is deleted, so the email can be invited afresh with a new password.
 */
export async function removeStaff(tx: Tx, principal: Acting, userId: string): Promise<void> {
  const member = await lockMember(tx, principal.businessId, userId);
  if (!member) throw notFound('user');
  // An invitation by another business that adds a membership meanwhile holds this lock until it
  // commits, so the check for a last membership below sees it.
  await lockUser(tx, userId);
  await deleteMembership(tx, principal.businessId, userId);
  await revokeRefreshTokensOf(tx, userId, principal.businessId, new Date());
  await deleteUserWithoutMemberships(tx, userId);
  await recordAudit(tx, principal, {
    action: 'staff.removed',
    entityType: 'user',
    entityId: userId,
    before: toStaffView(member),
  });
}
