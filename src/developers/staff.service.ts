import { recordAudit } from '../audit/audit.service.ts';
import { enqueueEmail, venueInSubject } from '../messages/sender.jobs.ts';
import {
  type PasswordHasher,
  type Principal,
  randomToken,
  sha256,
  type TokenService,
} from '../platform/auth.ts';
import { type Db, type Executor, type Tx, withTx } from '../platform/db.ts';
import { AppError, conflict, notFound } from '../platform/errors.ts';
import type { Commit } from '../platform/idempotency.ts';
import type { Page, PageRequest } from '../platform/pagination.ts';
import type { MembershipRole, MembershipStatus } from '../schema.ts';
import {
  checkPassword,
  issueTokens,
  type LoginAttempt,
  type TokenPair,
  underLoginLimit,
} from './sessions.service.ts';
import {
  activateMembership,
  deleteInvitationSendsBefore,
  deleteMembership,
  deleteUserWithoutMemberships,
  findInvitation,
  findInvitingBusiness,
  findMember,
  findUserByEmail,
  insertInvitationSend,
  insertMembership,
  invitationSendsSince,
  joinBySeededPassword,
  listMembersOf,
  lockInvitation,
  lockInvitationSends,
  lockMember,
  lockUser,
  membershipsOf,
  renewInvitation,
  revokeAllRefreshTokensOf,
  revokeRefreshTokensOf,
  seededInvitationsOf,
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
 * Joins the memberships whose invitation created the account with this password, as the person
 * signs in with it: the list shows them `active` only from then on. Hashes are compared before the
 * transaction; a seed the account still has as its password needs no second check.
 */
async function joinSeededInvitations(
  db: Db,
  passwords: PasswordHasher,
  user: { id: string; email: string; password_hash: string },
  password: string,
): Promise<void> {
  const joining: { businessId: string; seed: string }[] = [];
  for (const invitation of await seededInvitationsOf(db, user.id)) {
    const seed = invitation.seeded_password_hash!;
    if (seed === user.password_hash || (await passwords.verify(seed, password)))
      joining.push({ businessId: invitation.business_id, seed });
  }
  if (joining.length === 0) return;
  await withTx(db, async (tx) => {
    for (const { businessId, seed } of joining) {
      if (!(await joinBySeededPassword(tx, businessId, user.id, seed))) continue;
      await recordAudit(
        tx,
        { businessId, actor: user.email },
        {
          action: 'staff.invitation_accepted',
          entityType: 'user',
          entityId: user.id,
          meta: { by: 'seeded_password' },
        },
      );
    }
  });
}

/**
 * Logs a dashboard user in to their oldest active membership; `businesses` lists all of them,
 * oldest first. A first sign-in with the password an invitation gave the new account joins that
 * membership. `attempt` is when and from where, for the login limits.
 */
export async function logInUser(
  db: Db,
  tokens: TokenService,
  passwords: PasswordHasher,
  input: { email: string; password: string },
  attempt: LoginAttempt,
): Promise<DashboardSession> {
  return underLoginLimit(db, { kind: 'user', email: input.email }, attempt, async () => {
    const user = await findUserByEmail(db, input.email);
    await checkPassword(passwords, user?.password_hash, input.password);
    await joinSeededInvitations(db, passwords, user!, input.password);
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
export async function prepareInvite(
  passwords: PasswordHasher,
  input: { email: string; role: MembershipRole; password?: string },
): Promise<StaffInvite> {
  return {
    email: input.email.toLowerCase(),
    role: input.role,
    passwordHash: await passwords.hash(input.password ?? randomToken(32)),
    seedsPassword: input.password !== undefined,
  };
}

/** Where invitation links point, and the moment of the change. */
export interface InvitationContext {
  now: Date;
  publicBaseUrl: string;
}

/**
 * Invitations emailed (re-sent ones too) within a rolling day: per business, and per developer
 * across all their businesses, so that no tenant sends the platform's mail to strangers in bulk.
 */
const INVITATION_LIMITS = { perBusiness: 20, perDeveloper: 50, windowMs: 86_400_000 } as const;

/**
 * When another invitation may be sent, given those sent within the window (oldest first); null
 * when one may be sent now. A limit frees a place when the oldest of its counted invitations
 * leaves the window.
 */
function invitationsFreeAt(
  sent: readonly { business_id: string; sent_at: Date }[],
  businessId: string,
): Date | null {
  const freeAt = (times: Date[], limit: number) =>
    times.length < limit ? 0 : times[times.length - limit]!.getTime() + INVITATION_LIMITS.windowMs;
  const all = sent.map((s) => s.sent_at);
  const mine = sent.filter((s) => s.business_id === businessId).map((s) => s.sent_at);
  const at = Math.max(
    freeAt(mine, INVITATION_LIMITS.perBusiness),
    freeAt(all, INVITATION_LIMITS.perDeveloper),
  );
  return at === 0 ? null : new Date(at);
}

/**
 * Takes the business's turn to send an invitation: the developer's invitations wait for each other
 * until the transaction ends, so concurrent ones on any process count each other. 429 with
 * `Retry-After` past a limit; otherwise answers who is inviting, for `sendInvitation`.
 */
async function takeInvitationTurn(tx: Tx, businessId: string, now: Date) {
  const business = await findInvitingBusiness(tx, businessId);
  await lockInvitationSends(tx, business.developer_id);
  const sent = await invitationSendsSince(
    tx,
    business.developer_id,
    new Date(now.getTime() - INVITATION_LIMITS.windowMs),
  );
  const freeAt = invitationsFreeAt(sent, businessId);
  if (freeAt) {
    const retryAfterSeconds = Math.max(1, Math.ceil((freeAt.getTime() - now.getTime()) / 1000));
    throw new AppError(
      'rate_limit_exceeded',
      `at most ${INVITATION_LIMITS.perBusiness} invitations per business and ${INVITATION_LIMITS.perDeveloper} per developer a day; retry in ${retryAfterSeconds} s`,
      { retryAfterSeconds },
    );
  }
  return { businessId, businessName: business.name, developerId: business.developer_id };
}

type InvitationTurn = Awaited<ReturnType<typeof takeInvitationTurn>>;

/**
 * Writes a fresh link for the membership into the outbox, counted against the limits; answers the
 * token's hash and expiry. The text is the platform's own: the business appears only by its name,
 * quoted and cut as in a subject line, and the inviter adds nothing.
 */
async function sendInvitation(
  tx: Tx,
  turn: InvitationTurn,
  email: string,
  { now, publicBaseUrl }: InvitationContext,
): Promise<{ invite_token_hash: string; invite_expires_at: Date }> {
  const token = randomToken(48);
  const expires = new Date(now.getTime() + INVITATION_DAYS * 86_400_000);
  const name = venueInSubject(turn.businessName);
  const message = await enqueueEmail(tx, {
    businessId: turn.businessId,
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
  await insertInvitationSend(tx, {
    developer_id: turn.developerId,
    business_id: turn.businessId,
    message_id: message.id,
    sent_at: now,
  });
  // Kept while the link works, so that the outbox can tell the message for what it is.
  await deleteInvitationSendsBefore(
    tx,
    turn.developerId,
    new Date(now.getTime() - INVITATION_DAYS * 86_400_000),
  );
  return { invite_token_hash: sha256(token), invite_expires_at: expires };
}

/**
 * Adds the email to the business as an `invited` membership, which grants nothing until the person
 * joins, and emails them a link. A password in the invitation seeds an account the invitation
 * creates: signing in with it once joins, as opening the link does. An existing account never gets
 * the invitation's password, and everything the inviter sees (the answer, the staff list, the
 * messages list) is the same as for a new person.
 */
export async function inviteStaff(
  tx: Tx,
  principal: Acting,
  invite: StaffInvite,
  context: InvitationContext,
): Promise<InvitedView> {
  const turn = await takeInvitationTurn(tx, principal.businessId, context.now);
  const user = await upsertUser(tx, invite.email, invite.passwordHash);
  const link = await sendInvitation(tx, turn, user.email, context);
  const membership = await insertMembership(tx, {
    user_id: user.id,
    business_id: principal.businessId,
    role: invite.role,
    status: 'invited',
    invited_at: context.now,
    ...link,
    seeded_password_hash: user.created && invite.seedsPassword ? invite.passwordHash : null,
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
  const turn = await takeInvitationTurn(tx, principal.businessId, context.now);
  const member = await lockMember(tx, principal.businessId, userId);
  if (!member) throw notFound('user');
  if (member.status !== 'invited') throw conflict('the member has already joined');
  const link = await sendInvitation(tx, turn, member.email, context);
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
export async function prepareAcceptance(
  passwords: PasswordHasher,
  input: { token: string; password: string },
) {
  return { tokenHash: sha256(input.token), passwordHash: await passwords.hash(input.password) };
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
  passwords: PasswordHasher,
  principal: Acting,
  input: { email: string; role: MembershipRole; password?: string },
  context: InvitationContext,
  commit: Commit<R>,
): Promise<R> {
  const prepared = await prepareInvite(passwords, input);
  return commit((tx) => inviteStaff(tx, principal, prepared, context));
}

/** An invitation's link used: the chosen password hashed (outside the transaction), then the invitation accepted. */
export async function acceptInvitationLink<R>(
  tokens: TokenService,
  passwords: PasswordHasher,
  input: { token: string; password: string },
  now: Date,
  commit: Commit<R>,
): Promise<R> {
  const acceptance = await prepareAcceptance(passwords, input);
  return commit((tx) => acceptInvitation(tx, tokens, acceptance, now));
}
