import { sql } from 'kysely';
import type { Executor } from '../platform/db.ts';
import { keysetPage, type PageRequest, sortedBy } from '../platform/pagination.ts';
import { rangeLiteral } from '../platform/sql.ts';

export interface BlockRow {
  id: string;
  resource_id: string;
  reason: string | null;
  source: string | null;
  created_at: Date;
  start_at: Date;
  end_at: Date;
}

const selectBlocks = (executor: Executor, businessId: string) =>
  executor
    .selectFrom('resource_blocks')
    .select([
      'id',
      'resource_id',
      'reason',
      'source',
      'created_at',
      sql<Date>`lower(during)`.as('start_at'),
      sql<Date>`upper(during)`.as('end_at'),
    ])
    .where('business_id', '=', businessId);

export interface NewBlock {
  resourceId: string;
  /** Epoch milliseconds: the block is `[start, end)`. */
  start: number;
  end: number;
  reason: string | null;
  source: string | null;
}

export async function insertBlock(executor: Executor, businessId: string, block: NewBlock) {
  const { id } = await executor
    .insertInto('resource_blocks')
    .values({
      business_id: businessId,
      resource_id: block.resourceId,
      during: rangeLiteral(block.start, block.end),
      reason: block.reason,
      source: block.source,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return selectBlocks(executor, businessId).where('id', '=', id).executeTakeFirstOrThrow();
}

/**
 * Blocks of one resource, oldest first, each as `view` makes it; `from`/`to` (epoch ms) keep those
 * overlapping the period.
 */
export function listBlocks<T>(
  executor: Executor,
  page: PageRequest,
  resourceId: string,
  period: { from?: number; to?: number },
  view: (row: BlockRow) => T,
) {
  let query = selectBlocks(executor, page.owner).where('resource_id', '=', resourceId);
  if (period.from !== undefined) query = query.where(sql<boolean>`upper(during) > ${new Date(period.from)}`);
  if (period.to !== undefined) query = query.where(sql<boolean>`lower(during) < ${new Date(period.to)}`);
  return keysetPage(
    query,
    {
      // Per resource, so one resource's cursor is refused by another's list.
      name: `resource_blocks:${resourceId}`,
      keys: sortedBy('created_at', 'timestamptz'),
    },
    page,
    view,
  );
}

/**
 * Deletes a block of the resource that no calendar import made; its id and resource, or undefined
 * when there was none.
 */
export const deleteBlock = (executor: Executor, businessId: string, resourceId: string, blockId: string) =>
  executor
    .deleteFrom('resource_blocks')
    .where('id', '=', blockId)
    .where('resource_id', '=', resourceId)
    .where('business_id', '=', businessId)
    .where('import_id', 'is', null)
    .returning(['id', 'resource_id'])
    .executeTakeFirst();

/** Whether the resource has this block, made by a calendar import. */
export const isImportedBlock = async (
  executor: Executor,
  businessId: string,
  resourceId: string,
  blockId: string,
) =>
  (await executor
    .selectFrom('resource_blocks')
    .select('id')
    .where('id', '=', blockId)
    .where('resource_id', '=', resourceId)
    .where('business_id', '=', businessId)
    .where('import_id', 'is not', null)
    .executeTakeFirst()) !== undefined;
