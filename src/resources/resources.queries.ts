import { sql } from 'kysely';
import { businessRows } from '../platform/business-rows.ts';
import type { Executor } from '../platform/db.ts';
import { keysetPage, type PageRequest, sortedBy } from '../platform/pagination.ts';

export const RESOURCE_COLUMNS = [
  'id',
  'name',
  'resource_type',
  'capacity_min',
  'capacity_max',
  'section',
  'display_order',
  'is_active',
  'created_at',
] as const;

export interface ResourceRow {
  id: string;
  name: string;
  resource_type: string | null;
  capacity_min: number;
  capacity_max: number;
  section: string | null;
  display_order: number;
  is_active: boolean;
  created_at: Date;
}

/** Live resources of the business in display order, each as `view` makes it. */
export const listResources = <T>(executor: Executor, page: PageRequest, view: (row: ResourceRow) => T) =>
  keysetPage(
    executor
      .selectFrom('resources')
      .select(RESOURCE_COLUMNS)
      .where('business_id', '=', page.owner)
      .where('deleted_at', 'is', null),
    { name: 'resources', keys: sortedBy('display_order', 'integer') },
    page,
    view,
  );

export type NewResource = Omit<ResourceRow, 'id' | 'created_at'>;

const resourceRows = businessRows('resources', RESOURCE_COLUMNS);

export const insertResource = resourceRows.insert;

export const updateResource = resourceRows.update;

export const softDeleteResource = (executor: Executor, businessId: string, resourceId: string) =>
  resourceRows.update(executor, businessId, resourceId, { deleted_at: new Date() });

/** A live (not deleted) resource of the business, locked for the rest of the transaction. */
export async function lockResource(executor: Executor, businessId: string, resourceId: string) {
  return executor
    .selectFrom('resources')
    .select(RESOURCE_COLUMNS)
    .where('id', '=', resourceId)
    .where('business_id', '=', businessId)
    .where('deleted_at', 'is', null)
    .forUpdate()
    .executeTakeFirst();
}

/** Where a resource created without a `display_order` goes: after the last live one. */
export async function nextDisplayOrder(executor: Executor, businessId: string): Promise<number> {
  const { last } = await executor
    .selectFrom('resources')
    .select((eb) => eb.fn.max<number | null>('display_order').as('last'))
    .where('business_id', '=', businessId)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return (last ?? 0) + 1;
}

/** Whether bookings still to come hold this resource; such a resource must not disappear. */
export async function hasUpcomingBookings(
  executor: Executor,
  businessId: string,
  resourceId: string,
): Promise<boolean> {
  // The holds: a combined booking holds its joined tables too.
  const row = await executor
    .selectFrom('booking_holds as h')
    .innerJoin('bookings as b', (join) =>
      join.onRef('b.business_id', '=', 'h.business_id').onRef('b.id', '=', 'h.booking_id'),
    )
    .select('b.id')
    .where('h.business_id', '=', businessId)
    .where('h.resource_id', '=', resourceId)
    .where('b.ends_at', '>', sql<Date>`now()`)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** The ids among `ids` that are not live resources of the business (or, `activeOnly`, not active ones). */
export async function unknownResourceIds(
  executor: Executor,
  businessId: string,
  ids: readonly string[],
  { activeOnly = false } = {},
): Promise<string[]> {
  if (ids.length === 0) return [];
  let query = executor
    .selectFrom('resources')
    .select('id')
    .where('business_id', '=', businessId)
    .where('deleted_at', 'is', null)
    .where('id', 'in', ids);
  if (activeOnly) query = query.where('is_active', '=', true);
  const found = await query.execute();
  const known = new Set(found.map((row) => row.id));
  return ids.filter((id) => !known.has(id));
}
