import { recordAudit } from '../audit/audit.ts';
import { enqueueEmail, venueInSubject } from '../messages/sender.ts';
import { hashPassword, type Principal, randomToken, sha256, type TokenService } from '../platform/auth.ts';
import type { Db, Executor, Tx } from '../platform/db.ts';
import { AppError, conflict, notFound } from '../platform/errors.ts';
import type { Commit } from '../platform/idempotency.ts';
import type { Page, PageRequest } from '../platform/pagination.ts';
import type { MembershipRole, MembershipStatus } from '../schema.ts';
import { findBusinessInfo } from './developers.queries.ts';
import {
  checkPassword,
  issueTokens,
  type LoginAttempt,
  type TokenPair,
  underLoginLimit,
} from './sessions.service.ts';
import {
  activateMembership,
  deleteMembership,
  deleteUserWithoutMemberships,
  findInvitation,
  findMember,
  findUserByEmail,
  insertMembership,
  listMembersOf,
  lockInvitation,
  lockMember,
  lockUser,
  membershipsOf,
  renewInvitation,
  revokeAllRefreshTokensOf,
  revokeRefreshTokensOf,
  setMemberRole,
  setPasswordEndingSessions,
  upsertUser,
} from './staff.queries.ts';

type Acting = Principal & { businessId: string };

/** How long an invitation link works. */
export const INVITATION_DAYS = 7;

export interface StaffView {
  id: string;
  email: string;
  role: MembershipRole;
  status: MembershipStatus;
  invited_at: string;
  created_at: string;
}

/**
 * The answer to an invitation: without the status, which would tell the inviting business
 * whether the email already had an account.
 */
export type InvitedView = Omit<StaffView, 'status'>;

const toStaffView = (row: {
  id: string;
  email: string;
  role: MembershipRole;
  status: MembershipStatus;
  invited_at: Date;
  created_at: Date;
}): StaffView => ({
  id: row.id,
  email: row.email,
  role: row.role,
  status: row.status,
  invited_at: row.invited_at.toISOString(),
  created_at: row.created_at.toISOString(),
});

/** A dashboard session: the token pair of one business, and every business the user may switch to. */
export interface DashboardSession extends TokenPair {
  businesses: { id: string; name: string; role: MembershipRole }[];
}

async function sessionFor(
  executor: Executor,
  tokens: TokenService,
  user: { id: string; email: string; session_epoch: number },
  current: { id: string; role: MembershipRole },
  businesses: DashboardSession['businesses'],
): Promise<DashboardSession> {
  const pair = await issueTokens(executor, tokens, 'user', {
    sub: user.id,
    email: user.email,
    role: current.role,
    businessId: current.id,
    sessionEpoch: user.session_epoch,
  });
  return { ...pair, businesses };
}

/**
 * Logs a dashboard user in to their oldest active membership; `businesses` lists all of them,
 * oldest first. `attempt` is when and from where, for the login limits.
 */
export async function logInUser(
  db: Db,
  tokens: TokenService,
  input: { email: string; password: string },
  attempt: LoginAttempt,
): Promise<DashboardSession> {
  return underLoginLimit(db, { kind: 'user', email: input.email }, attempt, async () => {
    const user = await findUserByEmail(db, input.email);
    await checkPassword(user?.password_hash, input.password);
    const businesses = await membershipsOf(db, user!.id);
    // A user whose memberships all wait for their link, or a removal racing this login: as if
    // they did not exist.
    if (businesses.length === 0) throw new AppError('invalid_token', 'email or password is wrong');
    return sessionFor(db, tokens, user!, businesses[0]!, businesses);
  });
}

/** A session of another of the user's businesses; one they are not an active member of is 404. */
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

/** The dashboard user behind a token: who, acting on which business, and every active membership. */
export async function currentUser(executor: Executor, principal: Principal) {
  const member = await findMember(executor, principal.businessId!, principal.userId!);
  if (!member) throw new AppError('invalid_token', 'the account no longer belongs to this business');
  return {
    id: member.id,
    email: member.email,
    business_id: principal.businessId!,
    role: member.role,
    businesses: await membershipsOf(executor, member.id),
  };
}

export async function listStaff(executor: Executor, page: PageRequest): Promise<Page<StaffView>> {
  const rows = await listMembersOf(executor, page);
  return { ...rows, items: rows.items.map(toStaffView) };
}

export interface StaffInvite {
  email: string;
  role: MembershipRole;
  passwordHash: string;
  /** The invitation named a password: it seeds the account only if the invitation creates it. */
  seedsPassword: boolean;
}

/**
 * Hashes the invite's password before its transaction: it takes tens of milliseconds, which no
 * lock (and on the embedded database, no other request) should wait for. Without a password, a
 * random one is hashed: the new account has a password nobody knows until the link sets one, and
 * the invitation costs the same time either way.
 */
export async function prepareInvite(input: {
  email: string;
  role: MembershipRole;
  password?: string;
}): Promise<StaffInvite> {
  return {
    email: input.email.toLowerCase(),
    role: input.role,
    passwordHash: await hashPassword(input.password ?? randomToken(32)),
    seedsPassword: input.password !== undefined,
  };
}

/** Where invitation links point, and the moment of the change. */
export interface InvitationContext {
  now: Date;
  publicBaseUrl: string;
}

/** Writes a fresh link for the membership into the outbox; answers the token's hash and expiry. */
async function sendInvitation(
  tx: Tx,
  businessId: string,
  email: string,
  { now, publicBaseUrl }: InvitationContext,
): Promise<{ invite_token_hash: string; invite_expires_at: Date }> {
  const token = randomToken(48);
  const expires = new Date(now.getTime() + INVITATION_DAYS * 86_400_000);
  const business = await findBusinessInfo(tx, businessId);
  const name = venueInSubject(business?.name ?? '');
  await enqueueEmail(tx, {
    businessId,
    to: email,
    subject: `You are invited to ${name} on Slotwise`,
    text: [
      'Hello,',
      '',
      `you are invited to work with ${name} on Slotwise.`,
      `To accept, open this link and choose your password before ${expires.toISOString().slice(0, 16).replace('T', ' ')} UTC:`,
      '',
      `${publicBaseUrl}/staff/accept?token=${token}`,
      '',
      'Choosing it ends every session of your account that is open elsewhere.',
      'If you did not expect this, ignore this message: nothing changes without the link.',
    ].join('\n'),
  });
  return { invite_token_hash: sha256(token), invite_expires_at: expires };
}

/**
 * Adds the email to the business. A new account made with a password in the invitation is active
 * at once (its inviter chose that first password). Any other membership is `invited`: it grants
 * nothing until the person opens the emailed link and chooses a password there. An existing
 * account never gets the invitation's password, and the answer is the same as for a new person.
 */
export async function inviteStaff(
  tx: Tx,
  principal: Acting,
  invite: StaffInvite,
  context: InvitationContext,
): Promise<InvitedView> {
  const user = await upsertUser(tx, invite.email, invite.passwordHash);
  const activeAtOnce = user.created && invite.seedsPassword;
  const link = activeAtOnce ? null : await sendInvitation(tx, principal.businessId, user.email, context);
  const membership = await insertMembership(tx, {
    user_id: user.id,
    business_id: principal.businessId,
    role: invite.role,
    status: activeAtOnce ? 'active' : 'invited',
    invited_at: context.now,
    invite_token_hash: link?.invite_token_hash ?? null,
    invite_expires_at: link?.invite_expires_at ?? null,
  });
  if (!membership) throw conflict('a dashboard user with this email exists');
  const created = toStaffView({ id: user.id, email: user.email, ...membership });
  await recordAudit(tx, principal, {
    action: 'staff.invited',
    entityType: 'user',
    entityId: created.id,
    after: created,
  });
  const { status: _status, ...answer } = created;
  return answer;
}

/** Sends an invited member a new link; the previous one stops working. */
export async function resendInvitation(
  tx: Tx,
  principal: Acting,
  userId: string,
  context: InvitationContext,
): Promise<StaffView> {
  const member = await lockMember(tx, principal.businessId, userId);
  if (!member) throw notFound('user');
  if (member.status !== 'invited') throw conflict('the member has already accepted the invitation');
  const link = await sendInvitation(tx, principal.businessId, member.email, context);
  await renewInvitation(tx, principal.businessId, userId, { ...link, invited_at: context.now });
  const after = toStaffView({ ...member, invited_at: context.now });
  await recordAudit(tx, principal, {
    action: 'staff.invitation_resent',
    entityType: 'user',
    entityId: userId,
    after,
  });
  return after;
}

/** What the page behind an invitation link shows of it. */
export interface InvitationView {
  business_name: string;
  role: MembershipRole;
  email: string;
}

/**
 * The invitation a link still works for; undefined for a used, withdrawn, re-sent, expired,
 * unknown or missing token, which the page cannot tell apart either: only the token's holder
 * learns who invited whom.
 */
export async function invitationByLink(
  executor: Executor,
  token: string | undefined,
  now: Date,
): Promise<InvitationView | undefined> {
  if (!token) return undefined;
  return findInvitation(executor, sha256(token), now);
}

/** Hashes the chosen password before the transaction, as `prepareInvite` does. */
export async function prepareAcceptance(input: { token: string; password: string }) {
  return { tokenHash: sha256(input.token), passwordHash: await hashPassword(input.password) };
}

/**
 * Accepts an invitation by its link's token: the account gets the password chosen here, every
 * session and refresh token it had ends (whoever knew an earlier password is out), the membership
 * becomes active and the link is spent. Answers a session acting on that business.
 */
export async function acceptInvitation(
  tx: Tx,
  tokens: TokenService,
  acceptance: { tokenHash: string; passwordHash: string },
  now: Date,
): Promise<DashboardSession> {
  const invitation = await lockInvitation(tx, acceptance.tokenHash, now);
  if (!invitation) {
    throw new AppError('invalid_token', 'the invitation link is unknown, expired or already used');
  }
  const user = await setPasswordEndingSessions(tx, invitation.user_id, acceptance.passwordHash);
  await revokeAllRefreshTokensOf(tx, user.id, now);
  await activateMembership(tx, invitation.business_id, user.id);
  await recordAudit(
    tx,
    { businessId: invitation.business_id, actor: user.email },
    { action: 'staff.invitation_accepted', entityType: 'user', entityId: user.id },
  );
  const businesses = await membershipsOf(tx, user.id);
  return sessionFor(tx, tokens, user, { id: invitation.business_id, role: invitation.role }, businesses);
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
 * Ends the user's membership of the business (or withdraws its invitation, whose link then stops
 * working): their tokens for it stop working at once. A user left without any membership is
 * deleted, so the email can be invited afresh with a new password.
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

/** An invitation: the password a new account may bring hashed (outside the transaction), then the invitation made. */
export async function invite<R>(
  principal: Acting,
  input: { email: string; role: MembershipRole; password?: string },
  context: InvitationContext,
  commit: Commit<R>,
): Promise<R> {
  const prepared = await prepareInvite(input);
  return commit((tx) => inviteStaff(tx, principal, prepared, context));
}

/** An invitation's link used: the chosen password hashed (outside the transaction), then the invitation accepted. */
export async function acceptInvitationLink<R>(
  tokens: TokenService,
  input: { token: string; password: string },
  now: Date,
  commit: Commit<R>,
): Promise<R> {
  const acceptance = await prepareAcceptance(input);
  return commit((tx) => acceptInvitation(tx, tokens, acceptance, now));
}
