import { createHash, randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import type { FastifyRequest } from 'fastify';
import { jwtVerify, SignJWT } from 'jose';
import { sql } from 'kysely';
import type { PasswordCost } from '../config.ts';
import type { SubscriptionState } from '../schema.ts';
import type { Db } from './db.ts';

export type Scope = 'read' | 'write' | 'admin';
export type Role = 'business_owner' | 'staff_member' | 'developer';

/** Who is calling, resolved once per request from the Bearer credential. */
export interface Principal {
  /**
   * `publishable_key`: a key meant for web pages, limited to the routes marked `publishable`.
   * `partner`: a reservation partner's Basic credentials, on its own routes, for a business listed
   * with it (partners/).
   */
  kind: 'api_key' | 'publishable_key' | 'user' | 'developer' | 'partner';
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
  /** When a JWT stops being accepted (its `exp`, in ms since the epoch); absent for keys. */
  expiresAt?: number;
  /** A dashboard user's session epoch, as the token carries it; absent for other credentials. */
  sessionEpoch?: number;
}

/**
 * Whether the caller holds a secret credential of the business: a key, a dashboard user's or a
 * developer's token of it, never a key meant for web pages, a partner's, nor no credential at all.
 */
export const holdsSecretCredentialOf = (
  principal: Pick<Principal, 'kind' | 'businessId'> | null,
  businessId: string,
): principal is Pick<Principal, 'kind' | 'businessId'> =>
  principal !== null &&
  principal.kind !== 'publishable_key' &&
  principal.kind !== 'partner' &&
  principal.businessId === businessId;

/**
 * Why a principal resolved earlier no longer holds: its key was revoked or deactivated, its
 * membership or session ended (`credential_revoked`), or its role is another now.
 */
export type Lapse = 'credential_revoked' | 'role_changed';

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

/** Argon2id password hashes of one cost (the app's `passwords`). */
export class PasswordHasher {
  private readonly cost: PasswordCost;
  private decoyHash: Promise<string> | undefined;

  constructor(cost: PasswordCost) {
    this.cost = cost;
  }

  hash(password: string): Promise<string> {
    return hash(password, {
      memoryCost: this.cost.memoryKib,
      timeCost: this.cost.passes,
      parallelism: this.cost.lanes,
    });
  }

  /** False for a wrong password and for a stored value that is no hash. */
  verify(passwordHash: string, password: string): Promise<boolean> {
    return verify(passwordHash, password).catch(() => false);
  }

  /** Compared against when an email is unknown, so both failures take the same time. */
  decoy(): Promise<string> {
    this.decoyHash ??= this.hash(randomBytes(16).toString('hex'));
    return this.decoyHash;
  }
}

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
export const isApiKey = (token: string) => KEY_MARKERS.some((marker) => token.startsWith(marker));
export const keyLookup = (key: string) => key.slice(0, LOOKUP_LENGTH);
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
    lookup: keyLookup(key),
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
  /** The `exp` claim, in ms since the epoch; set by `verify`, never signed from here (tokens last ACCESS_TOKEN_SECONDS). */
  expiresAt?: number;
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
      return {
        sub: payload.sub,
        email: payload.email,
        role,
        businessId: meta?.business_id,
        sessionEpoch,
        expiresAt: (payload.exp as number) * 1000,
      };
    } catch {
      return null;
    }
  }
}

/**
 * Keeps `last_used_at` without a write on the request path: uses are remembered here and written
 * in one statement every few seconds (and at shutdown).
 */
export class KeyUsageRecorder {
  /** When each key was last used, in epoch milliseconds. */
  private pending = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private readonly db: Db;

  constructor(db: Db, intervalMs = 5000) {
    this.db = db;
    this.timer = setInterval(() => void this.flush().catch(() => {}), intervalMs);
    this.timer.unref();
  }

  touch(keyId: string): void {
    this.pending.set(keyId, Date.now());
  }

  /** The writes begun, one after another; never rejects (a failed write fails its own flush). */
  private writing: Promise<void> = Promise.resolve();

  /** Writes the uses remembered, after the writes already under way, which it also waits for. */
  flush(): Promise<void> {
    const earlier = this.writing;
    if (this.pending.size === 0) return earlier;
    const batch = this.pending;
    this.pending = new Map();
    const used = [...batch].map(([id, at]) => sql`(${id}::uuid, ${new Date(at).toISOString()}::timestamptz)`);
    // GREATEST: several API processes may flush the same key in any order.
    const write = earlier.then(async () => {
      await sql`
        UPDATE api_keys SET last_used_at = GREATEST(api_keys.last_used_at, used.at)
        FROM (VALUES ${sql.join(used)}) AS used (id, at)
        WHERE api_keys.id = used.id`.execute(this.db);
    });
    this.writing = write.catch(() => {});
    return write;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}

/**
 * Turns a request's credential into its Principal. The guards and CORS ask it; the one the app
 * runs reads keys, accounts and the subscription from the database (developers/authenticator.service.ts).
 */
export interface Authenticator {
  /** The API's own public origin: where the hosted booking page calls from with a default key. */
  readonly ownOrigin: string;
  /** Whether a browser on `origin` may call with some publishable key: the API's own, or one a key lists. */
  isPublishableOrigin(origin: string): Promise<boolean>;
  /** Returns null when no credential is sent; throws 401 when one is sent and is not valid. */
  resolve(request: FastifyRequest): Promise<Principal | null>;
  /**
   * Of principals resolved earlier and still in use (open live streams), those that no longer
   * hold, and why: read from the database, one statement per kind of credential, never from a
   * cache, so a change made by another process counts as soon as it is committed.
   */
  lapsed(principals: readonly Principal[]): Promise<Map<Principal, Lapse>>;
}
