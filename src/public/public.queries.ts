import { sql } from 'kysely';
import type { Executor } from '../platform/db.ts';
import { isUuid } from '../platform/schemas.ts';
import {
  type BusinessProfile,
  type BusinessSettings,
  type MessageSettings,
  PROFILE_COLUMNS,
} from '../settings/settings.queries.ts';
import { WIDGET_SETTINGS } from './public.view.ts';

/**
 * A business by its slug, which is stored in lower case, or by its id (what a widget may be given
 * instead). A slug that happens to spell another business's id wins.
 */

export const findBusinessBySlug = async (executor: Executor, slug: string) =>
  (await executor
    .selectFrom('businesses')
    .select([
      'id',
      'name',
      'slug',
      ...WIDGET_SETTINGS,
      'max_online_party_size',
      ...PROFILE_COLUMNS,
      'guest_emails_enabled',
      'is_dev as is_sandbox',
      // The largest party an active table or combination seats: null without any.
      sql<number | null>`(SELECT max(seats) FROM (
        SELECT r.capacity_max AS seats FROM resources r
        WHERE r.business_id = businesses.id AND r.is_active AND r.deleted_at IS NULL
        UNION ALL
        SELECT c.capacity_max FROM combinations c WHERE c.business_id = businesses.id AND c.is_active) AS s)`.as(
        'seatable_party',
      ),
    ])
    .where((eb) =>
      isUuid(slug)
        ? eb.or([eb('slug', '=', slug.toLowerCase()), eb('id', '=', slug)])
        : eb('slug', '=', slug.toLowerCase()),
    )
    .orderBy(sql`slug = ${slug.toLowerCase()}`, 'desc')
    .limit(1)
    .executeTakeFirst()) as
    | ({ id: string; name: string; slug: string; is_sandbox: boolean; seatable_party: number | null } & Pick<
        BusinessSettings,
        (typeof WIDGET_SETTINGS)[number] | 'max_online_party_size'
      > &
        BusinessProfile &
        Pick<MessageSettings, 'guest_emails_enabled'>)
    | undefined;

export async function findBusinessTimezone(executor: Executor, businessId: string) {
  const business = await executor
    .selectFrom('businesses')
    .select('timezone')
    .where('id', '=', businessId)
    .executeTakeFirst();
  return business?.timezone;
}
