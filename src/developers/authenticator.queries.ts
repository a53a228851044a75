import { sql } from 'kysely';
import { SUBSCRIPTION_COLUMNS } from '../billing/subscription.queries.ts';
import type { Db } from '../platform/db.ts';

/** Active publishable keys that allow an origin, of any business. */
export const publishableKeyAllowing = (db: Db, origin: string) =>
  db
    .selectFrom('api_keys')
    .select('id')
    .where('type', '=', 'publishable')
    .where('is_active', '=', true)
    .where('allowed_origins', '@>', sql<string[]>`ARRAY[${origin}]::text[]`)
    .limit(1)
    .executeTakeFirst();

/**
 * Memberships with their user, those that grant something: an invited one waits for the person
 * to accept the emailed link.
 */
const activeMemberships = (db: Db) =>
  db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .where('memberships.status', '=', 'active');

/** The active keys whose lookup prefix is `lookup`, with their business and its subscription: the caller compares hashes. */
export const activeKeysByLookup = (db: Db, lookup: string) =>
  db
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
    .where('api_keys.lookup', '=', lookup)
    .where('api_keys.is_active', '=', true)
    .execute();

export const developerWithSubscription = (db: Db, developerId: string) =>
  db
    .selectFrom('developers')
    .select(['id', 'email', ...SUBSCRIPTION_COLUMNS])
    .where('id', '=', developerId)
    .executeTakeFirst();

/** The business if the developer owns it. */
export const ownedBusiness = (db: Db, developerId: string, businessId: string) =>
  db
    .selectFrom('businesses')
    .select(['id', 'is_dev'])
    .where('id', '=', businessId)
    .where('developer_id', '=', developerId)
    .executeTakeFirst();

/** A user's active membership of a business, with the business's developer and subscription. */
export const activeMember = (db: Db, userId: string, businessId: string) =>
  activeMemberships(db)
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
    .where('memberships.user_id', '=', userId)
    .where('memberships.business_id', '=', businessId)
    .executeTakeFirst();

/** Which of the keys `ids` are still active. */
export const activeKeyIds = (db: Db, ids: readonly string[]) =>
  db.selectFrom('api_keys').select('id').where('id', 'in', ids).where('is_active', '=', true).execute();

/** The active memberships among the users and businesses named: their role and session epoch. */
export const activeMembershipsOf = (db: Db, userIds: readonly string[], businessIds: readonly string[]) =>
  activeMemberships(db)
    .select(['memberships.user_id', 'memberships.business_id', 'memberships.role', 'users.session_epoch'])
    .where('memberships.user_id', 'in', userIds)
    .where('memberships.business_id', 'in', businessIds)
    .execute();
