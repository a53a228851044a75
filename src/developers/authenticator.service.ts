import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { subscriptionOf } from '../billing/subscription.queries.ts';
import {
  type Authenticator,
  expandScopes,
  isApiKey,
  type KeyUsageRecorder,
  keyLookup,
  type Lapse,
  type Principal,
  type Scope,
  sha256,
  type TokenService,
} from '../platform/auth.ts';
import type { ChangeFeed } from '../platform/change-feed.ts';
import type { Db } from '../platform/db.ts';
import { AppError, notFound } from '../platform/errors.ts';
import { isUuid } from '../platform/schemas.ts';
import {
  activeKeyIds,
  activeKeysByLookup,
  activeMember,
  activeMembershipsOf,
  developerWithSubscription,
  ownedBusiness,
  publishableKeyAllowing,
} from './authenticator.queries.ts';

const invalidToken = (message = 'missing or invalid credentials') => new AppError('invalid_token', message);

/** Verified keys are remembered this long at most, even when no change is announced. */
const KEY_CACHE_MS = 60_000;

interface VerifiedKey {
  version: string;
  principal: Principal;
  /** The key's id, as key usage records it. */
  keyId: string;
}

/** The Authenticator the app runs: API keys, dashboard and developer tokens, read from the database. */
export class DatabaseAuthenticator implements Authenticator {
  private readonly db: Db;
  private readonly tokens: TokenService;
  private readonly usage: KeyUsageRecorder;
  private readonly changes: ChangeFeed;
  readonly ownOrigin: string;
  /**
   * Verified API keys by the request's whole `Authorization` header: a key used again costs one
   * lookup (no parsing, no hash, no database) until keys or billing change. The header, which
   * holds the key, lives in this process only, as the key does while its request is served.
   */
  private readonly verifiedKeys = new LRUCache<string, VerifiedKey>({
    // About what an entry holds: the principal's strings and ids, the header and the map's own cost.
    maxSize: 8 * 1024 * 1024,
    sizeCalculation: (entry, header) =>
      600 + 2 * (header.length + entry.principal.actor.length + entry.principal.credentialId.length),
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

  async isPublishableOrigin(origin: string): Promise<boolean> {
    if (origin === this.ownOrigin) return true;
    const version = this.changes.credentialsVersion();
    const cached = this.knownOrigins.get(origin);
    if (cached && cached.version === version) return cached.allowed;
    const allowed = (await publishableKeyAllowing(this.db, origin)) !== undefined;
    if (version) this.knownOrigins.set(origin, { version, allowed });
    return allowed;
  }

  async resolve(request: FastifyRequest): Promise<Principal | null> {
    const header = request.headers.authorization;
    if (header === undefined || header === '') return null;
    const version = this.changes.credentialsVersion();
    const cached = this.verifiedKeys.get(header);
    if (cached !== undefined && cached.version === version) {
      this.usage.touch(cached.keyId);
      return cached.principal;
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw invalidToken('the Authorization header must be "Bearer <token>"');
    const token = match[1]!;
    if (!isApiKey(token)) return this.resolveJwt(token, request);
    const principal = await this.lookUpApiKey(token);
    if (version) this.verifiedKeys.set(header, { version, principal, keyId: credentialKey(principal) });
    return principal;
  }

  private async lookUpApiKey(key: string): Promise<Principal> {
    const keyHash = sha256(key);
    const candidates = await activeKeysByLookup(this.db, keyLookup(key));
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
      const developer = await developerWithSubscription(this.db, claims.sub);
      if (!developer) throw invalidToken('the account no longer exists');
      const named = request.headers['x-business-id'];
      let businessId: string | null = null;
      let sandbox = false;
      if (typeof named === 'string' && named !== '') {
        if (!isUuid(named)) throw notFound('business');
        const owned = await ownedBusiness(this.db, developer.id, named);
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
        expiresAt: claims.expiresAt,
      };
    }
    // The membership is read on every use: a removed membership's token stops working at once,
    // and a changed role applies at once.
    if (!claims.businessId || !isUuid(claims.businessId))
      throw invalidToken('the access token names no business');
    const member = await activeMember(this.db, claims.sub, claims.businessId);
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
      expiresAt: claims.expiresAt,
      sessionEpoch: member.session_epoch,
    };
  }

  /** A developer's token is left out: its businesses stay its own, so it lapses only at its `exp`. */
  async lapsed(principals: readonly Principal[]): Promise<Map<Principal, Lapse>> {
    const lapsed = new Map<Principal, Lapse>();
    const keys = principals.filter((p) => p.kind === 'api_key' || p.kind === 'publishable_key');
    const users = principals.filter((p) => p.kind === 'user');
    const [activeKeys, memberships] = await Promise.all([
      keys.length === 0 ? [] : activeKeyIds(this.db, distinct(keys.map(credentialKey))),
      users.length === 0
        ? []
        : activeMembershipsOf(
            this.db,
            distinct(users.map((p) => p.userId!)),
            distinct(users.map((p) => p.businessId!)),
          ),
    ]);
    const active = new Set(activeKeys.map((key) => key.id));
    for (const principal of keys) {
      if (!active.has(credentialKey(principal))) lapsed.set(principal, 'credential_revoked');
    }
    const members = new Map(memberships.map((m) => [`${m.user_id}:${m.business_id}`, m]));
    for (const principal of users) {
      const member = members.get(`${principal.userId}:${principal.businessId}`);
      if (!member || member.session_epoch !== principal.sessionEpoch)
        lapsed.set(principal, 'credential_revoked');
      else if (member.role !== principal.role) lapsed.set(principal, 'role_changed');
    }
    return lapsed;
  }
}

const distinct = (values: string[]) => [...new Set(values)];
/** An API key principal's key id: its `credentialId` is `key:<id>`. */
const credentialKey = (principal: Principal) => principal.credentialId.slice('key:'.length);
