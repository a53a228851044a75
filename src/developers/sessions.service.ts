import {
  ACCESS_TOKEN_SECONDS,
  decoyPasswordHash,
  generateRefreshToken,
  refreshTokenExpiry,
  sha256,
  type TokenClaims,
  type TokenService,
  verifyPassword,
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
  spendRefreshToken,
} from './sessions.queries.ts';
import { findMember } from './staff.queries.ts';

export interface TokenPair {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  refresh_token: string;
}

const wrongCredentials = () => new AppError('invalid_token', 'email or password is wrong');

/** Checks a password against a stored hash; an unknown account costs the same time as a wrong password. */
export async function checkPassword(passwordHash: string | undefined, password: string): Promise<void> {
  const ok = await verifyPassword(passwordHash ?? (await decoyPasswordHash()), password).catch(() => false);
  if (!passwordHash || !ok) throw wrongCredentials();
}

/** 10 failed logins of one account within 15 minutes lock its logins for 15 minutes. */
export const LOGIN_LIMIT = { failures: 10, windowMs: 15 * 60_000, lockMs: 15 * 60_000 } as const;

/** The 429 of a locked account; the route turns `retryAfterSeconds` into `Retry-After`. */
export class AccountLocked extends AppError {
  readonly retryAfterSeconds: number;

  constructor(retryAfterSeconds: number) {
    super('rate_limit_exceeded', `too many failed logins for this account; retry in ${retryAfterSeconds} s`);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * When the account's logins are locked until, given its failures (oldest first): each run of
 * `failures` within `windowMs` locks them for `lockMs` from the last failure of the run.
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
 * Runs a login attempt under the per-account limit. The attempt is recorded as failed before it
 * runs and the record is taken back only when it succeeds, so concurrent guesses (on any number
 * of API processes) cannot slip past the count, and a successful login leaves earlier failures
 * counted. An email without an account is counted and locked the same way, so a lock says nothing
 * about whether the account exists. Attempts refused by the lock are not counted: a lock lasts
 * its 15 minutes, however often it is knocked on.
 */
export async function underLoginLimit<T>(
  db: Db,
  account: { kind: AccountKind; email: string },
  now: Date,
  attempt: () => Promise<T>,
): Promise<T> {
  const email = account.email.toLowerCase();
  const failureId = await withTx(db, async (tx) => {
    await lockAccountLogins(tx, account.kind, email);
    // Any failure that can still belong to a lock in force is younger than this.
    const since = new Date(now.getTime() - LOGIN_LIMIT.windowMs - LOGIN_LIMIT.lockMs);
    const until = lockedUntil(await failedLoginsSince(tx, account.kind, email, since));
    if (until && until > now) throw new AccountLocked(Math.ceil((until.getTime() - now.getTime()) / 1000));
    await deleteLoginFailuresBefore(tx, since);
    return insertLoginFailure(tx, { account_kind: account.kind, email, failed_at: now });
  });
  const result = await attempt();
  await deleteLoginFailure(db, failureId);
  return result;
}

export async function issueTokens(
  executor: Executor,
  tokens: TokenService,
  subjectKind: 'developer' | 'user',
  claims: TokenClaims,
): Promise<TokenPair> {
  const refreshToken = generateRefreshToken();
  await insertRefreshToken(executor, {
    token_hash: sha256(refreshToken),
    subject_kind: subjectKind,
    subject_id: claims.sub,
    business_id: claims.businessId ?? null,
    expires_at: refreshTokenExpiry(),
  });
  return {
    access_token: await tokens.sign(claims),
    token_type: 'bearer',
    expires_in: ACCESS_TOKEN_SECONDS,
    refresh_token: refreshToken,
  };
}

/**
 * Exchanges a refresh token for a new pair; the old one is spent (rotation), so a stolen copy works
 * once at most. A dashboard user's new token acts on the business the old one did, with their
 * current role there; without that membership any more, the refresh token is refused.
 */
export async function refreshTokens(
  tx: Tx,
  tokens: TokenService,
  refreshToken: string,
  now: Date,
): Promise<TokenPair> {
  const spent = await spendRefreshToken(tx, sha256(refreshToken), now);
  const invalid = () =>
    new AppError('invalid_token', 'the refresh token is unknown, expired or already used');
  if (!spent) throw invalid();
  if (spent.subject_kind === 'developer') {
    const developer = await findDeveloper(tx, spent.subject_id);
    if (!developer) throw invalid();
    return issueTokens(tx, tokens, 'developer', {
      sub: developer.id,
      email: developer.email,
      role: 'developer',
    });
  }
  const member = spent.business_id && (await findMember(tx, spent.business_id, spent.subject_id));
  if (!member) throw invalid();
  return issueTokens(tx, tokens, 'user', {
    sub: member.id,
    email: member.email,
    role: member.role,
    businessId: spent.business_id!,
  });
}
