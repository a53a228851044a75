import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import type { FastifyRequest } from 'fastify';
import { jwtVerify, SignJWT } from 'jose';
import { sql } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { SubscriptionState } from '../billing/plans.ts';
import { SUBSCRIPTION_COLUMNS, subscriptionOf } from '../billing/subscription.queries.ts';
import type { ChangeFeed } from './change-feed.ts';
import type { Db } from './db.ts';
import { AppError, notFound } from './errors.ts';
import { isUuid } from './schemas.ts';

export type Scope = 'read' | 'write' | 'admin';
export type Role = 'business_owner' | 'staff_member' | 'developer';

/** Who is calling, resolved once per request from the Bearer credential. */
export interface Principal {
  /** `publishable_key`: a key meant for web pages, limited to the routes marked `publishable`. */
  kind: 'api_key' | 'publishable_key' | 'user' | 'developer';
  /** The business the call acts on; null for a developer JWT without `X-Business-Id`. */
  businessId: string | null;
  developerId: string | null;
  /** The dashboard user's id; null for other credentials. */
  userId: string | null;
  scopes: ReadonlySet<Scope>;
  role: Role | null;
  /** Written into audit rows: a user's email or `api_key:<name>`. */
  actor: string;
  /** Stable id of the credential: idempotency keys and rate limits are scoped to it. */
  credentialId: string;
  rateLimitPerMinute: number | null;
  /** The subscription of the developer who owns the business (or is calling), as stored. */
  subscription: SubscriptionState;
  /** A sandbox (`is_dev`) business: every feature, no quota. False without a business. */
  sandbox: boolean;
  /**
   * The origins a publishable key may be used from (its `allowed_origins`, and the API's own
   * public origin for a business's default key); absent for other credentials.
   */
  allowedOrigins?: readonly string[];
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export const ALL_SCOPES: Scope[] = ['read', 'write', 'admin'];
const IMPLIED: Record<Scope, Scope[]> = {
  admin: ['admin', 'write', 'read'],
  write: ['write', 'read'],
  read: ['read'],
};
export const expandScopes = (scopes: readonly Scope[]): Set<Scope> =>
  new Set(scopes.flatMap((s) => IMPLIED[s]));

export const MIN_PASSWORD_LENGTH = 10;
export const ACCESS_TOKEN_SECONDS = 3600;
const REFRESH_TOKEN_DAYS = 30;

export const hashPassword = (password: string) => hash(password);
export const verifyPassword = (passwordHash: string, password: string) => verify(passwordHash, password);
/** Compared against when an email is unknown, so both failures take the same time. */
let decoyHash: Promise<string> | undefined;
export const decoyPasswordHash = () => {
  decoyHash ??= hash(randomBytes(16).toString('hex'));
  return decoyHash;
};

export const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

const KEY_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/**
 * Length of the key head stored in clear and indexed: `svc_live_` plus 11 random characters, or
 * `svc_pk_live_` plus 8.
 */
const LOOKUP_LENGTH = 20;
/** What lists show of a key: its marker and, for a publishable key (`svc_pk_live_`), 4 more characters. */
export const DISPLAY_PREFIX_LENGTH = { secret: 12, publishable: 16 } as const;
const KEY_MARKERS = ['svc_live_', 'svc_test_', 'svc_pk_live_', 'svc_pk_test_'];
export type ApiKeyType = keyof typeof DISPLAY_PREFIX_LENGTH;

/** `length` random letters and digits, each equally likely. */
export function randomToken(length: number): string {
  const bytes = randomBytes(length * 2);
  let out = '';
  for (let i = 0; i < bytes.length && out.length < length; i++) {
    // 62 * 4 = 248: rejecting bytes >= 248 keeps every character equally likely.
    if (bytes[i]! < 248) out += KEY_ALPHABET[bytes[i]! % 62];
  }
  return out.length === length ? out : randomToken(length);
}

export interface NewApiKey {
  key: string;
  prefix: string;
  lookup: string;
  keyHash: string;
}

export function generateApiKey(environment: 'live' | 'test', type: ApiKeyType = 'secret'): NewApiKey {
  const key = `svc_${type === 'publishable' ? 'pk_' : ''}${environment}_${randomToken(40)}`;
  return {
    key,
    prefix: key.slice(0, DISPLAY_PREFIX_LENGTH[type]),
    lookup: key.slice(0, LOOKUP_LENGTH),
    keyHash: sha256(key),
  };
}

export const generateRefreshToken = () => `rt_${randomToken(48)}`;
export const refreshTokenExpiry = () => new Date(Date.now() + REFRESH_TOKEN_DAYS * 86_400_000);

export interface TokenClaims {
  sub: string;
  email: string;
  role: Role;
  businessId?: string;
  /** A dashboard user's session epoch when issued (claim `sv`): ending every session raises the account's. */
  sessionEpoch?: number;
}

export class TokenService {
  private readonly key: Uint8Array;

  constructor(secret: string) {
    this.key = new TextEncoder().encode(secret);
  }

  sign(claims: TokenClaims): Promise<string> {
    const appMetadata: Record<string, string> = { role: claims.role };
    if (claims.businessId) appMetadata.business_id = claims.businessId;
    const payload: Record<string, unknown> = { email: claims.email, app_metadata: appMetadata };
    if (claims.sessionEpoch !== undefined) payload.sv = claims.sessionEpoch;
    return new SignJWT(payload)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(claims.sub)
      .setIssuedAt()
      .setExpirationTime(`${ACCESS_TOKEN_SECONDS}s`)
      .sign(this.key);
  }

  async verify(token: string): Promise<TokenClaims | null> {
    try {
      // Without `requiredClaims`, jose accepts a token that has no `exp`: it would never expire.
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        requiredClaims: ['exp'],
      });
      const meta = payload.app_metadata as { role?: string; business_id?: string } | undefined;
      const role = meta?.role;
      if (!payload.sub || typeof payload.email !== 'string') return null;
      if (role !== 'business_owner' && role !== 'staff_member' && role !== 'developer') return null;
      const sessionEpoch = typeof payload.sv === 'number' ? payload.sv : undefined;
      return { sub: payload.sub, email: payload.email, role, businessId: meta?.business_id, sessionEpoch };
    } catch {
      return null;
    }
  }
}

const invalidToken = (message = 'missing or invalid credentials') => new AppError('invalid_token', message);

/**
 * Keeps `last_used_at` without a write on the request path: uses are remembered here and written
 * in one statement every few seconds (and at shutdown).
 */
export class KeyUsageRecorder {
  private pending = new Map<string, Date>();
  private timer: NodeJS.Timeout | undefined;
  private readonly db: Db;

  constructor(db: Db, intervalMs = 5000) {
    this.db = db;
    this.timer = setInterval(() => void this.flush().catch(() => {}), intervalMs);
    this.timer.unref();
  }

  touch(keyId: string): void {
    this.pending.set(keyId, new Date());
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    const used = [...batch].map(([id, at]) => sql`(${id}::uuid, ${at.toISOString()}::timestamptz)`);
    // GREATEST: several API processes may flush the same key in any order.
    await sql`
      UPDATE api_keys SET last_used_at = GREATEST(api_keys.last_used_at, used.at)
      FROM (VALUES ${sql.join(used)}) AS used (id, at)
      WHERE api_keys.id = used.id`.execute(this.db);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}

/** Verified keys are remembered this long at most, even when no change is announced. */
const KEY_CACHE_MS = 60_000;

/** Active publishable keys that allow an origin, of any business. */
const publishableKeysAllowing = (db: Db, origin: string) =>
  db
    .selectFrom('api_keys')
    .select('id')
    .where('type', '=', 'publishable')
    .where('is_active', '=', true)
    .where('allowed_origins', '@>', sql<string[]>`ARRAY[${origin}]::text[]`)
    .limit(1)
    .executeTakeFirst();

export class Authenticator {
  private readonly db: Db;
  private readonly tokens: TokenService;
  private readonly usage: KeyUsageRecorder;
  private readonly changes: ChangeFeed;
  /** The API's own public origin: where the hosted booking page calls from with a default key. */
  readonly ownOrigin: string;
  /** Verified API keys by hash: a key used again skips the database until keys or billing change. */
  private readonly verifiedKeys = new LRUCache<string, { version: string; principal: Principal }>({
    // About what an entry holds: the principal's strings and ids, the hash key and the map's own cost.
    maxSize: 8 * 1024 * 1024,
    sizeCalculation: (entry) =>
      600 + 2 * (entry.principal.actor.length + entry.principal.credentialId.length),
    ttl: KEY_CACHE_MS,
  });
  /** Whether some publishable key allows an origin, by origin: asked by every CORS preflight. */
  private readonly knownOrigins = new LRUCache<string, { version: string; allowed: boolean }>({
    maxSize: 4 * 1024 * 1024,
    sizeCalculation: (_entry, origin) => 200 + 2 * origin.length,
    ttl: KEY_CACHE_MS,
  });

  constructor(db: Db, tokens: TokenService, usage: KeyUsageRecorder, changes: ChangeFeed, ownOrigin: string) {
    this.db = db;
    this.tokens = tokens;
    this.usage = usage;
    this.changes = changes;
    this.ownOrigin = ownOrigin;
  }

  /** Whether a browser on `origin` may call with some publishable key: the API's own, or one a key lists. */
  async isPublishableOrigin(origin: string): Promise<boolean> {
    if (origin === this.ownOrigin) return true;
    const version = this.changes.credentialsVersion();
    const cached = this.knownOrigins.get(origin);
    if (cached && cached.version === version) return cached.allowed;
    const allowed = (await publishableKeysAllowing(this.db, origin)) !== undefined;
    if (version) this.knownOrigins.set(origin, { version, allowed });
    return allowed;
  }

  /** Returns null when no credential is sent; throws 401 when one is sent and is not valid. */
  async resolve(request: FastifyRequest): Promise<Principal | null> {
    const header = request.headers.authorization;
    if (header === undefined || header === '') return null;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw invalidToken('the Authorization header must be "Bearer <token>"');
    const token = match[1]!;
    if (KEY_MARKERS.some((marker) => token.startsWith(marker))) return this.resolveApiKey(token);
    return this.resolveJwt(token, request);
  }

  private async resolveApiKey(key: string): Promise<Principal> {
    const keyHash = sha256(key);
    const version = this.changes.credentialsVersion();
    const cached = this.verifiedKeys.get(keyHash);
    if (cached && cached.version === version) {
      this.usage.touch(cached.principal.credentialId.slice('key:'.length));
      return cached.principal;
    }
    const principal = await this.lookUpApiKey(key, keyHash);
    if (version) this.verifiedKeys.set(keyHash, { version, principal });
    return principal;
  }

  private async lookUpApiKey(key: string, keyHash: string): Promise<Principal> {
    const candidates = await this.db
      .selectFrom('api_keys')
      .innerJoin('businesses', 'businesses.id', 'api_keys.business_id')
      .innerJoin('developers', 'developers.id', 'businesses.developer_id')
      .select([
        'api_keys.id',
        'api_keys.name',
        'api_keys.key_hash',
        'api_keys.scopes',
        'api_keys.rate_limit_per_minute',
        'api_keys.business_id',
        'api_keys.type',
        'api_keys.allowed_origins',
        'api_keys.is_default',
        'businesses.developer_id',
        'businesses.is_dev',
        ...SUBSCRIPTION_COLUMNS,
      ])
      .where('api_keys.lookup', '=', key.slice(0, LOOKUP_LENGTH))
      .where('api_keys.is_active', '=', true)
      .execute();
    const presented = Buffer.from(keyHash, 'hex');
    const row = candidates.find((c) => timingSafeEqual(Buffer.from(c.key_hash, 'hex'), presented));
    if (!row) throw invalidToken('the API key is unknown or revoked');
    this.usage.touch(row.id);
    const principal: Principal = {
      kind: 'api_key',
      businessId: row.business_id,
      developerId: row.developer_id,
      userId: null,
      scopes: expandScopes(row.scopes as Scope[]),
      role: null,
      actor: `api_key:${row.name}`,
      credentialId: `key:${row.id}`,
      rateLimitPerMinute: row.rate_limit_per_minute,
      subscription: subscriptionOf(row),
      sandbox: row.is_dev,
    };
    if (row.type === 'secret') return principal;
    // A publishable key passes the scope checks of the few routes marked `publishable`, which
    // only let it read and book; every other route refuses it before its scope is looked at.
    return {
      ...principal,
      kind: 'publishable_key',
      scopes: expandScopes(['write']),
      actor: `publishable_key:${row.name}`,
      allowedOrigins: row.is_default ? [...row.allowed_origins, this.ownOrigin] : row.allowed_origins,
    };
  }

  private async resolveJwt(token: string, request: FastifyRequest): Promise<Principal> {
    const claims = await this.tokens.verify(token);
    if (!claims) throw invalidToken('the access token is malformed or expired');
    if (claims.role === 'developer') {
      const developer = await this.db
        .selectFrom('developers')
        .select(['id', 'email', ...SUBSCRIPTION_COLUMNS])
        .where('id', '=', claims.sub)
        .executeTakeFirst();
      if (!developer) throw invalidToken('the account no longer exists');
      const named = request.headers['x-business-id'];
      let businessId: string | null = null;
      let sandbox = false;
      if (typeof named === 'string' && named !== '') {
        if (!isUuid(named)) throw notFound('business');
        const owned = await this.db
          .selectFrom('businesses')
          .select(['id', 'is_dev'])
          .where('id', '=', named)
          .where('developer_id', '=', developer.id)
          .executeTakeFirst();
        if (!owned) throw notFound('business');
        businessId = owned.id;
        sandbox = owned.is_dev;
      }
      return {
        kind: 'developer',
        businessId,
        developerId: developer.id,
        userId: null,
        scopes: expandScopes(['admin']),
        role: 'developer',
        actor: developer.email,
        credentialId: `developer:${developer.id}`,
        rateLimitPerMinute: null,
        subscription: subscriptionOf(developer),
        sandbox,
      };
    }
    // The membership is read on every use: a removed membership's token stops working at once,
    // and a changed role applies at once. Only an active membership grants anything: an invited
    // one waits for the person to accept the emailed link.
    if (!claims.businessId || !isUuid(claims.businessId))
      throw invalidToken('the access token names no business');
    const member = await this.db
      .selectFrom('memberships')
      .innerJoin('users', 'users.id', 'memberships.user_id')
      .innerJoin('businesses', 'businesses.id', 'memberships.business_id')
      .innerJoin('developers', 'developers.id', 'businesses.developer_id')
      .select([
        'users.id',
        'users.email',
        'users.session_epoch',
        'memberships.role',
        'memberships.business_id',
        'businesses.developer_id',
        'businesses.is_dev',
        ...SUBSCRIPTION_COLUMNS,
      ])
      .where('memberships.user_id', '=', claims.sub)
      .where('memberships.business_id', '=', claims.businessId)
      .where('memberships.status', '=', 'active')
      .executeTakeFirst();
    if (!member) throw invalidToken('the account no longer belongs to this business');
    // Tokens issued before the account's sessions were ended (accepting an invitation sets a new
    // password) carry an older epoch; tokens without one were issued under the first.
    if ((claims.sessionEpoch ?? 0) !== member.session_epoch) throw invalidToken('the session has ended');
    return {
      kind: 'user',
      businessId: member.business_id,
      developerId: member.developer_id,
      userId: member.id,
      scopes: expandScopes(member.role === 'business_owner' ? ['admin'] : ['write']),
      role: member.role,
      actor: member.email,
      credentialId: `user:${member.id}`,
      rateLimitPerMinute: null,
      subscription: subscriptionOf(member),
      sandbox: member.is_dev,
    };
  }
}
