import {
  ACCESS_TOKEN_SECONDS,
  generateRefreshToken,
  type PasswordHasher,
  refreshTokenExpiry,
  sha256,
  type TokenClaims,
  type TokenService,
} from '../platform/auth.ts';
import { type Db, type Executor, type Tx, withTx } from '../platform/db.ts';
import { AppError } from '../platform/errors.ts';
import { findDeveloper } from './developers.queries.ts';
import {
  type AccountKind,
  deleteLoginFailure,
  deleteLoginFailuresBefore,
  failedLoginsSince,
  insertLoginFailure,
  insertRefreshToken,
  lockAccountLogins,
  revokeFamilyOfSpent,
  spendRefreshToken,
} from './sessions.queries.ts';
import { findMember } from './staff.queries.ts';

export interface TokenPair {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  refresh_token: string;
}

export const wrongCredentials = () => new AppError('invalid_token', 'email or password is wrong');

/** Checks a password against a stored hash; an unknown account costs the same time as a wrong password. */
export async function checkPassword(
  passwords: PasswordHasher,
  passwordHash: string | undefined,
  password: string,
): Promise<void> {
  const ok = await passwords.verify(passwordHash ?? (await passwords.decoy()), password);
  if (!passwordHash || !ok) throw wrongCredentials();
}

/**
 * Failed logins of one email: `failures` from one client address within `windowMs` lock that email
 * for that address for `lockMs`, so a stranger elsewhere cannot lock the owner out; past
 * `accountFailures` from all addresses together within `windowMs`, one attempt per `spacingMs` is
 * let through, whatever its address.
 */
export const LOGIN_LIMIT = {
  failures: 10,
  windowMs: 15 * 60_000,
  lockMs: 15 * 60_000,
  accountFailures: 100,
  spacingMs: 10_000,
} as const;

/** The 429 of a locked account. */
const accountLocked = (retryAfterSeconds: number) =>
  new AppError(
    'rate_limit_exceeded',
    `too many failed logins for this account; retry in ${retryAfterSeconds} s`,
    {
      retryAfterSeconds,
    },
  );

/**
 * When logins from one address are locked until, given that address's failures (oldest first):
 * each run of `failures` within `windowMs` locks them for `lockMs` from the last failure of the run.
 */
export function lockedUntil(failures: readonly Date[]): Date | null {
  let until: number | null = null;
  for (let last = LOGIN_LIMIT.failures - 1; last < failures.length; last++) {
    const end = failures[last]!.getTime();
    if (end - failures[last - LOGIN_LIMIT.failures + 1]!.getTime() <= LOGIN_LIMIT.windowMs) {
      until = Math.max(until ?? 0, end + LOGIN_LIMIT.lockMs);
    }
  }
  return until === null ? null : new Date(until);
}

/**
 * When the next attempt from any address may run, given the email's failures from all addresses
 * (oldest first): null unless `accountFailures` of them are younger than `windowMs`.
 */
export function slowedUntil(failures: readonly Date[], now: Date): Date | null {
  const recent = failures.filter((at) => now.getTime() - at.getTime() < LOGIN_LIMIT.windowMs);
  if (recent.length < LOGIN_LIMIT.accountFailures) return null;
  return new Date(recent.at(-1)!.getTime() + LOGIN_LIMIT.spacingMs);
}

/** A login attempt's moment and the client address it came from. */
export interface LoginAttempt {
  now: Date;
  clientIp: string;
}

/**
 * Runs a login attempt under the per-account limits. The attempt is recorded as failed before it
 * runs and the record is taken back only when it succeeds, so concurrent guesses (on any number
 * of API processes) cannot slip past the count, and a successful login leaves earlier failures
 * counted. An email without an account is counted and locked the same way, so a lock says nothing
 * about whether the account exists. Attempts refused by the limits are not counted: a lock lasts
 * its 15 minutes, however often it is knocked on.
 */
export async function underLoginLimit<T>(
  db: Db,
  account: { kind: AccountKind; email: string },
  { now, clientIp }: LoginAttempt,
  attempt: () => Promise<T>,
): Promise<T> {
  const email = account.email.toLowerCase();
  const failureId = await withTx(db, async (tx) => {
    await lockAccountLogins(tx, account.kind, email);
    // Any failure that can still belong to a lock in force is younger than this.
    const since = new Date(now.getTime() - LOGIN_LIMIT.windowMs - LOGIN_LIMIT.lockMs);
    const failures = await failedLoginsSince(tx, account.kind, email, since);
    const here = lockedUntil(failures.filter((f) => f.client_ip === clientIp).map((f) => f.failed_at));
    const everywhere = slowedUntil(
      failures.map((f) => f.failed_at),
      now,
    );
    const until = Math.max(here?.getTime() ?? 0, everywhere?.getTime() ?? 0);
    if (until > now.getTime()) throw accountLocked(Math.ceil((until - now.getTime()) / 1000));
    await deleteLoginFailuresBefore(tx, since);
    return insertLoginFailure(tx, { account_kind: account.kind, email, client_ip: clientIp, failed_at: now });
  });
  const result = await attempt();
  await deleteLoginFailure(db, failureId);
  return result;
}

/** A new token pair; `familyId` is the family of the refresh token it renews (a login starts one). */
export async function issueTokens(
  executor: Executor,
  tokens: TokenService,
  subjectKind: 'developer' | 'user',
  claims: TokenClaims,
  familyId?: string,
): Promise<TokenPair> {
  const refreshToken = generateRefreshToken();
  await insertRefreshToken(executor, {
    token_hash: sha256(refreshToken),
    subject_kind: subjectKind,
    subject_id: claims.sub,
    business_id: claims.businessId ?? null,
    expires_at: refreshTokenExpiry(),
    ...(familyId ? { family_id: familyId } : {}),
  });
  return {
    access_token: await tokens.sign(claims),
    token_type: 'bearer',
    expires_in: ACCESS_TOKEN_SECONDS,
    refresh_token: refreshToken,
  };
}

const invalidRefreshToken = () =>
  new AppError('invalid_token', 'the refresh token is unknown, expired or already used');

/**
 * Exchanges a refresh token for a new pair; the old one is spent (rotation). A spent token presented
 * again means a copy is in other hands: every token of its family (all descended from the same
 * login) is revoked, and that revocation is committed before the 401 is answered. A dashboard
 * user's new token acts on the business the old one did, with their current role there; without
 * that (active) membership any more, the refresh token is refused.
 */
export async function refreshTokens(
  db: Db,
  tokens: TokenService,
  refreshToken: string,
  now: Date,
): Promise<TokenPair> {
  const tokenHash = sha256(refreshToken);
  const pair = await withTx(db, async (tx) => {
    const spent = await spendRefreshToken(tx, tokenHash, now);
    if (!spent) {
      await revokeFamilyOfSpent(tx, tokenHash, now);
      return null;
    }
    return renew(tx, tokens, spent);
  });
  if (!pair) throw invalidRefreshToken();
  return pair;
}

async function renew(
  tx: Tx,
  tokens: TokenService,
  spent: {
    subject_kind: 'developer' | 'user';
    subject_id: string;
    business_id: string | null;
    family_id: string;
  },
): Promise<TokenPair> {
  if (spent.subject_kind === 'developer') {
    const developer = await findDeveloper(tx, spent.subject_id);
    if (!developer) throw invalidRefreshToken();
    return issueTokens(
      tx,
      tokens,
      'developer',
      { sub: developer.id, email: developer.email, role: 'developer' },
      spent.family_id,
    );
  }
  const member = spent.business_id && (await findMember(tx, spent.business_id, spent.subject_id));
  if (!member) throw invalidRefreshToken();
  return issueTokens(
    tx,
    tokens,
    'user',
    {
      sub: member.id,
      email: member.email,
      role: member.role,
      businessId: spent.business_id!,
      sessionEpoch: member.session_epoch,
    },
    spent.family_id,
  );
}
