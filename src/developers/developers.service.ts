import { ALL_SCOPES, type PasswordHasher, type TokenService } from '../platform/auth.ts';
import type { Db, Executor, Tx } from '../platform/db.ts';
import { conflict, notFound } from '../platform/errors.ts';
import type { Commit } from '../platform/idempotency.ts';
import type { PageRequest } from '../platform/pagination.ts';
import { issueApiKey, issueDefaultPublishableKey } from './api-keys.service.ts';
import {
  findBusinessInfo,
  findDeveloperByEmail,
  insertBusiness,
  insertDeveloper,
  listBusinessesOf,
  lockSlug,
  slugsLike,
} from './developers.queries.ts';
import {
  checkPassword,
  issueTokens,
  type LoginAttempt,
  type TokenPair,
  underLoginLimit,
} from './sessions.service.ts';

export interface DeveloperView {
  id: string;
  email: string;
  first_name: string;
  last_name: string;
  created_at: string;
}

export interface Registration {
  email: string;
  passwordHash: string;
  first_name: string;
  last_name: string;
}

/** Hashes the password before the transaction: it takes tens of milliseconds, which no lock should wait for. */
async function prepareRegistration(
  passwords: PasswordHasher,
  input: { email: string; password: string; first_name: string; last_name: string },
): Promise<Registration> {
  return {
    email: input.email,
    passwordHash: await passwords.hash(input.password),
    first_name: input.first_name,
    last_name: input.last_name,
  };
}

async function recordDeveloper(tx: Tx, registration: Registration): Promise<DeveloperView> {
  if (await findDeveloperByEmail(tx, registration.email)) throw conflict('an account with this email exists');
  const developer = await insertDeveloper(tx, {
    email: registration.email,
    password_hash: registration.passwordHash,
    first_name: registration.first_name,
    last_name: registration.last_name,
  });
  return {
    id: developer.id,
    email: developer.email,
    first_name: developer.first_name,
    last_name: developer.last_name,
    created_at: developer.created_at.toISOString(),
  };
}

/** A new developer account: the password hashed, then the account made. */
export async function registerDeveloper<R>(
  passwords: PasswordHasher,
  input: { email: string; password: string; first_name: string; last_name: string },
  commit: Commit<R>,
): Promise<R> {
  const registration = await prepareRegistration(passwords, input);
  return commit((tx) => recordDeveloper(tx, registration));
}

/** `attempt` is when and from where the login is tried, for the login limits. */
export async function logInDeveloper(
  db: Db,
  tokens: TokenService,
  passwords: PasswordHasher,
  input: { email: string; password: string },
  attempt: LoginAttempt,
): Promise<TokenPair> {
  return underLoginLimit(db, { kind: 'developer', email: input.email }, attempt, async () => {
    const developer = await findDeveloperByEmail(db, input.email);
    await checkPassword(passwords, developer?.password_hash, input.password);
    return issueTokens(db, tokens, 'developer', {
      sub: developer!.id,
      email: developer!.email,
      role: 'developer',
    });
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
  const environment = isDev ? 'test' : 'live';
  const { key } = await issueApiKey(tx, business.id, {
    name: 'default',
    scopes: ALL_SCOPES,
    environment,
    rateLimitPerMinute: null,
  });
  await issueDefaultPublishableKey(tx, business.id, environment);
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

export const listBusinesses = (executor: Executor, page: PageRequest) => listBusinessesOf(executor, page);

export async function businessInfo(executor: Executor, businessId: string) {
  const business = await findBusinessInfo(executor, businessId);
  if (!business) throw notFound('business');
  return business;
}
