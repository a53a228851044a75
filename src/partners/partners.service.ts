import { timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { recordAudit } from '../audit/audit.service.ts';
import { subscriptionOf } from '../billing/subscription.queries.ts';
import { type LoginAttempt, underLoginLimit } from '../developers/sessions.service.ts';
import { expandScopes, type Principal, randomToken, sha256 } from '../platform/auth.ts';
import type { Db, Executor, Tx } from '../platform/db.ts';
import { AppError, invalidField, notFound } from '../platform/errors.ts';
import type { Page, PageRequest } from '../platform/pagination.ts';
import {
  businessesOfDeveloper,
  deleteListing,
  insertListings,
  insertPartner,
  listedBusiness,
  listPartnersOf,
  partnerByUsername,
} from './partners.queries.ts';

type Caller = Principal & { businessId: string };

export interface PartnerView {
  id: string;
  name: string;
  username: string;
  created_at: string;
}

/** A partner's Basic user name: the prefix and random letters and digits (`randomToken`). */
const USERNAME_PREFIX = 'partner_';
const USERNAME_LENGTH = 20;

/** The most businesses one call lists a new partner with. */
export const MAX_LISTED = 100;

/**
 * A new partner with HTTP Basic credentials, listed with the businesses named (the caller's own
 * when none are). Only the developer who owns businesses may list several of them: any other
 * credential lists its own business alone, so no one hands a partner a business they do not hold.
 * The password is answered this once and kept as its SHA-256 (256 random bits, like an API key).
 */
export async function createPartner(
  tx: Tx,
  caller: Caller,
  input: { name: string; business_ids?: string[] },
): Promise<PartnerView & { password: string; business_ids: string[] }> {
  const businessIds = [...new Set(input.business_ids ?? [caller.businessId])];
  const others = businessIds.filter((id) => id !== caller.businessId);
  if (others.length > 0 && caller.kind !== 'developer') {
    throw invalidField(
      'business_ids',
      "only the businesses' developer may list businesses other than this one",
    );
  }
  // Every credential of a business carries the business's developer.
  const developerId = caller.developerId;
  if (!developerId) throw notFound('business');
  const owned = new Set((await businessesOfDeveloper(tx, developerId, businessIds)).map((row) => row.id));
  const unknown = businessIds.find((id) => !owned.has(id));
  if (unknown) throw invalidField('business_ids', `names a business that is not yours: ${unknown}`);
  const password = randomToken(43);
  const row = await insertPartner(tx, {
    developer_id: developerId,
    name: input.name,
    username: `${USERNAME_PREFIX}${randomToken(USERNAME_LENGTH)}`,
    secret_hash: sha256(password),
  });
  await insertListings(tx, row.id, businessIds);
  const view = toView(row);
  for (const businessId of businessIds) {
    await recordAudit(
      tx,
      { ...caller, businessId },
      { action: 'partner.listed', entityType: 'partner', entityId: row.id, after: view },
    );
  }
  return { ...view, business_ids: businessIds, password };
}

const toView = (row: { id: string; name: string; username: string; created_at: Date }): PartnerView => ({
  id: row.id,
  name: row.name,
  username: row.username,
  created_at: row.created_at.toISOString(),
});

export async function listPartners(
  executor: Executor,
  page: PageRequest,
): Promise<Page<PartnerView & { listed_at: string }>> {
  const rows = await listPartnersOf(executor, page);
  return {
    ...rows,
    items: rows.items.map((row) => ({ ...toView(row), listed_at: row.listed_at.toISOString() })),
  };
}

/** Ends the business's listing: the partner's credentials no longer reach it; its bookings stay. */
export async function unlistPartner(tx: Tx, caller: Caller, partnerId: string): Promise<void> {
  const removed = await deleteListing(tx, caller.businessId, partnerId);
  if (!removed) throw notFound('partner');
  await recordAudit(tx, caller, { action: 'partner.unlisted', entityType: 'partner', entityId: partnerId });
}

/** A partner whose credentials were checked, as the request's principal (no business yet). */
export interface Partner {
  id: string;
  name: string;
  principal: Principal;
}

const BASIC = /^Basic\s+([A-Za-z0-9+/]+=*)\s*$/i;
/** What `createPartner` makes: anything else names no partner and is refused before any lookup. */
const USERNAME = new RegExp(`^${USERNAME_PREFIX}[A-Za-z0-9]{${USERNAME_LENGTH}}$`);

const unauthenticated = () =>
  new AppError(
    'invalid_token',
    'send the partner credentials as HTTP Basic: "Authorization: Basic <user:password>"',
  );
const wrongCredentials = () =>
  new AppError('invalid_token', 'the partner user name or password is not right');

/**
 * Checks partners' HTTP Basic credentials. Right credentials pass whatever failures came before
 * them: the password is 256 random bits, which no run of failures can guess, so a stranger who
 * knows the user name cannot lock the partner out. A wrong try counts as a failed login of the
 * user name (`underLoginLimit`: locked per address, slowed down per account), so guessing is
 * refused 429 as at the sign-in forms. Credentials that passed are remembered for a while, so a
 * partner's steady calls cost one hash, not a query each.
 */
export class PartnerAuthenticator {
  private readonly db: Db;
  private readonly verified = new LRUCache<string, Partner>({ max: 1000, ttl: 300_000 });

  constructor(db: Db) {
    this.db = db;
  }

  async authenticate(header: string | undefined, attempt: LoginAttempt): Promise<Partner> {
    const encoded = header && BASIC.exec(header)?.[1];
    if (!encoded) throw unauthenticated();
    const key = sha256(header);
    const known = this.verified.get(key);
    if (known) return known;
    const decoded = Buffer.from(encoded, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 1) throw unauthenticated();
    const username = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
    if (!USERNAME.test(username)) throw wrongCredentials();
    const found = async () => {
      const row = await partnerByUsername(this.db, username);
      return row && timingSafeEqual(Buffer.from(row.secret_hash), Buffer.from(sha256(password))) ? row : null;
    };
    const row =
      (await found()) ??
      (await underLoginLimit(this.db, { kind: 'partner', email: username }, attempt, async () => {
        throw wrongCredentials();
      }));
    const partner: Partner = {
      id: row.id,
      name: row.name,
      principal: {
        kind: 'partner',
        businessId: null,
        developerId: row.developer_id,
        userId: null,
        scopes: expandScopes(['write']),
        role: null,
        actor: `partner:${row.name}`,
        credentialId: `partner:${row.id}`,
        rateLimitPerMinute: null,
        subscription: subscriptionOf(row),
        sandbox: false,
      },
    };
    this.verified.set(key, partner);
    return partner;
  }
}

/**
 * The partner acting on one business it is listed with, as the booking use cases take a caller:
 * counted against the business's developer like any booking, and never trusted with a returning
 * guest's record (it is not the business's own credential). A business not listed with the
 * partner is as unknown to it as one that does not exist.
 */
export async function partnerAt(executor: Executor, partner: Partner, businessId: string): Promise<Caller> {
  const row = await listedBusiness(executor, partner.id, businessId);
  if (!row) throw notFound('business');
  return {
    kind: 'partner',
    businessId: row.id,
    developerId: row.developer_id,
    userId: null,
    scopes: expandScopes(['write']),
    role: null,
    actor: `partner:${partner.name}`,
    credentialId: `partner:${partner.id}`,
    rateLimitPerMinute: null,
    subscription: subscriptionOf(row),
    sandbox: row.is_dev,
  };
}
