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
import type { Executor, Tx } from '../platform/db.ts';
import { AppError } from '../platform/errors.ts';
import { findDeveloper, insertRefreshToken, spendRefreshToken } from './developers.queries.ts';
import { findMember } from './staff.queries.ts';

export interface TokenPair {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  refresh_token: string;
}

const wrongCredentials = () => new AppError(401, 'invalid_token', 'email or password is wrong');

/** Checks a password against a stored hash; an unknown account costs the same time as a wrong password. */
export async function checkPassword(passwordHash: string | undefined, password: string): Promise<void> {
  const ok = await verifyPassword(passwordHash ?? (await decoyPasswordHash()), password).catch(() => false);
  if (!passwordHash || !ok) throw wrongCredentials();
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
export async function refreshTokens(tx: Tx, tokens: TokenService, refreshToken: string): Promise<TokenPair> {
  const spent = await spendRefreshToken(tx, sha256(refreshToken), new Date());
  const invalid = () =>
    new AppError(401, 'invalid_token', 'the refresh token is unknown, expired or already used');
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
