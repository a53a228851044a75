import { sql } from 'kysely';
import {
  ACCESS_TOKEN_SECONDS,
  ALL_SCOPES,
  decoyPasswordHash,
  generateApiKey,
  generateRefreshToken,
  refreshTokenExpiry,
  type Scope,
  sha256,
  type TokenClaims,
  type TokenService,
  verifyPassword,
} from '../platform/auth.ts';
import type { Executor, Tx } from '../platform/db.ts';
import { AppError } from '../platform/errors.ts';

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

export async function issueTokens(
  executor: Executor,
  tokens: TokenService,
  subjectKind: 'developer' | 'user',
  claims: TokenClaims,
): Promise<TokenPair> {
  const refreshToken = generateRefreshToken();
  await executor
    .insertInto('refresh_tokens')
    .values({
      token_hash: sha256(refreshToken),
      subject_kind: subjectKind,
      subject_id: claims.sub,
      expires_at: refreshTokenExpiry(),
    })
    .execute();
  return {
    access_token: await tokens.sign(claims),
    token_type: 'bearer',
    expires_in: ACCESS_TOKEN_SECONDS,
    refresh_token: refreshToken,
  };
}

/** Exchanges a refresh token for a new pair; the old one is spent (rotation), so a stolen copy works once at most. */
export async function refreshTokens(
  executor: Executor,
  tokens: TokenService,
  refreshToken: string,
): Promise<TokenPair> {
  const spent = await executor
    .updateTable('refresh_tokens')
    .set({ revoked_at: new Date() })
    .where('token_hash', '=', sha256(refreshToken))
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', new Date())
    .returning(['subject_kind', 'subject_id'])
    .executeTakeFirst();
  const invalid = () =>
    new AppError('invalid_token', 'the refresh token is unknown, expired or already used');
  if (!spent) throw invalid();
  if (spent.subject_kind === 'developer') {
    const developer = await executor
      .selectFrom('developers')
      .select(['id', 'email'])
      .where('id', '=', spent.subject_id)
      .executeTakeFirst();
    if (!developer) throw invalid();
    return issueTokens(executor, tokens, 'developer', {
      sub: developer.id,
      email: developer.email,
      role: 'developer',
    });
  }
  const user = await executor
    .selectFrom('users')
    .select(['id', 'email', 'role', 'business_id'])
    .where('id', '=', spent.subject_id)
    .executeTakeFirst();
  if (!user) throw invalid();
  return issueTokens(executor, tokens, 'user', {
    sub: user.id,
    email: user.email,
    role: user.role as TokenClaims['role'],
    businessId: user.business_id,
  });
}

/** `Le Petit Café!` -> `le-petit-cafe`. */
export function slugify(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return base || 'business';
}

/**
 * The first free slug among `base`, `base-2`, `base-3`, ... Call it inside the transaction that
 * inserts the business: the lock makes a concurrent creation of the same name wait for this one to
 * commit, so the two cannot pick the same slug.
 */
export async function uniqueSlug(tx: Tx, name: string): Promise<string> {
  const base = slugify(name);
  await sql`SELECT pg_advisory_xact_lock(hashtext(${`business-slug:${base}`}))`.execute(tx);
  const taken = await tx
    .selectFrom('businesses')
    .select('slug')
    .where((eb) => eb.or([eb('slug', '=', base), eb('slug', 'like', `${base}-%`)]))
    .execute();
  const used = new Set(taken.map((row) => row.slug));
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) {
    if (!used.has(`${base}-${n}`)) return `${base}-${n}`;
  }
}

export async function insertApiKey(
  executor: Executor,
  input: {
    businessId: string;
    name: string;
    scopes: Scope[];
    environment: 'live' | 'test';
    rateLimitPerMinute: number | null;
  },
) {
  const generated = generateApiKey(input.environment);
  const scopes = ALL_SCOPES.filter((scope) => input.scopes.includes(scope));
  const row = await executor
    .insertInto('api_keys')
    .values({
      business_id: input.businessId,
      name: input.name,
      prefix: generated.prefix,
      lookup: generated.lookup,
      key_hash: generated.keyHash,
      scopes,
      environment: input.environment,
      rate_limit_per_minute: input.rateLimitPerMinute,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { row, key: generated.key };
}
