import {
  ACCESS_TOKEN_SECONDS,
  ALL_SCOPES,
  decoyPasswordHash,
  generateRefreshToken,
  hashPassword,
  refreshTokenExpiry,
  sha256,
  type TokenClaims,
  type TokenService,
  verifyPassword,
} from '../platform/auth.ts';
import { type Db, type Executor, type Tx, withTx } from '../platform/db.ts';
import { AppError, conflict, notFound } from '../platform/errors.ts';
import { decodeCursorStrings, toPage } from '../platform/pagination.ts';
import { issueApiKey } from './api-keys.service.ts';
import {
  findBusinessInfo,
  findDeveloper,
  findDeveloperByEmail,
  insertBusiness,
  insertDeveloper,
  insertRefreshToken,
  listBusinessesOf,
  lockSlug,
  slugsLike,
  spendRefreshToken,
} from './developers.queries.ts';
import { findUser } from './staff.queries.ts';

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
    expires_at: refreshTokenExpiry(),
  });
  return {
    access_token: await tokens.sign(claims),
    token_type: 'bearer',
    expires_in: ACCESS_TOKEN_SECONDS,
    refresh_token: refreshToken,
  };
}

/** Exchanges a refresh token for a new pair; the old one is spent (rotation), so a stolen copy works once at most. */
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
  const user = await findUser(tx, spent.subject_id);
  if (!user) throw invalid();
  return issueTokens(tx, tokens, 'user', {
    sub: user.id,
    email: user.email,
    role: user.role as TokenClaims['role'],
    businessId: user.business_id,
  });
}

export interface DeveloperView {
  id: string;
  email: string;
  first_name: string;
  last_name: string;
  created_at: string;
}

export async function registerDeveloper(
  db: Db,
  input: { email: string; password: string; first_name: string; last_name: string },
): Promise<DeveloperView> {
  // Hashed before the transaction: it takes tens of milliseconds, which no lock should wait for.
  const passwordHash = await hashPassword(input.password);
  const developer = await withTx(db, async (tx) => {
    if (await findDeveloperByEmail(tx, input.email)) throw conflict('an account with this email exists');
    return insertDeveloper(tx, {
      email: input.email,
      password_hash: passwordHash,
      first_name: input.first_name,
      last_name: input.last_name,
    });
  });
  return {
    id: developer.id,
    email: developer.email,
    first_name: developer.first_name,
    last_name: developer.last_name,
    created_at: developer.created_at.toISOString(),
  };
}

export async function logInDeveloper(
  executor: Executor,
  tokens: TokenService,
  input: { email: string; password: string },
): Promise<TokenPair> {
  const developer = await findDeveloperByEmail(executor, input.email);
  await checkPassword(developer?.password_hash, input.password);
  return issueTokens(executor, tokens, 'developer', {
    sub: developer!.id,
    email: developer!.email,
    role: 'developer',
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
  await lockSlug(tx, base);
  const used = new Set(await slugsLike(tx, base));
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) {
    if (!used.has(`${base}-${n}`)) return `${base}-${n}`;
  }
}

export async function createBusiness(
  tx: Tx,
  developerId: string,
  input: { name: string; business_type?: string | null; is_dev?: boolean },
) {
  const isDev = input.is_dev ?? false;
  const business = await insertBusiness(tx, {
    developer_id: developerId,
    name: input.name,
    slug: await uniqueSlug(tx, input.name),
    business_type: input.business_type ?? null,
    is_dev: isDev,
  });
  const { key } = await issueApiKey(tx, business.id, {
    name: 'default',
    scopes: ALL_SCOPES,
    environment: isDev ? 'test' : 'live',
    rateLimitPerMinute: null,
  });
  return {
    business_id: business.id,
    name: business.name,
    slug: business.slug,
    business_type: business.business_type,
    is_dev: business.is_dev,
    api_key: key,
    scopes: ALL_SCOPES,
  };
}

export async function listBusinesses(
  executor: Executor,
  developerId: string,
  page: { limit: number; cursor?: string },
) {
  const after = decodeCursorStrings(page.cursor, 1);
  const rows = await listBusinessesOf(executor, developerId, {
    limit: page.limit,
    afterId: after?.[0] ?? null,
  });
  return toPage(
    rows,
    page.limit,
    (row) => [row.id],
    (row) => ({ ...row, business_id: row.id, created_at: row.created_at.toISOString() }),
  );
}

export async function businessInfo(executor: Executor, businessId: string) {
  const business = await findBusinessInfo(executor, businessId);
  if (!business) throw notFound('business');
  return business;
}
