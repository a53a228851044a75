import { sql } from 'kysely';
import { businessRows } from '../platform/business-rows.ts';
import type { Executor } from '../platform/db.ts';
import { keysetPage, type PageRequest, sortedBy } from '../platform/pagination.ts';
import { rangeLiteral } from '../platform/sql.ts';

export interface ImportRow {
  id: string;
  resource_id: string;
  url: string;
  last_synced_at: Date | null;
  last_error: string | null;
  created_at: Date;
}

const IMPORT_COLUMNS = ['id', 'resource_id', 'url', 'last_synced_at', 'last_error', 'created_at'] as const;

/** What a sync needs of an import: where to read, the ETag it holds, and the venue's zone. */
export interface ImportToSync {
  id: string;
  business_id: string;
  resource_id: string;
  url: string;
  etag: string | null;
  parsed_at: Date | null;
  timezone: string;
}

export const insertImport = (
  executor: Executor,
  row: { business_id: string; resource_id: string; url: string; next_sync_at: Date },
) => executor.insertInto('calendar_imports').values(row).returning(IMPORT_COLUMNS).executeTakeFirstOrThrow();

export const listImportsOf = <T>(executor: Executor, page: PageRequest, view: (row: ImportRow) => T) =>
  keysetPage(
    executor.selectFrom('calendar_imports').select(IMPORT_COLUMNS).where('business_id', '=', page.owner),
    { name: 'calendar_imports', keys: sortedBy('created_at', 'timestamptz') },
    page,
    view,
  );

/** Deletes the import; its blocks go with it (ON DELETE CASCADE). */
export const deleteImportRow = businessRows('calendar_imports', IMPORT_COLUMNS).delete;

/**
 * Imports due for a sync, all businesses: each claimed by moving its next sync to `next`, so
 * another process skips it (SKIP LOCKED) and a process that dies mid-sync leaves it for then.
 */
export async function claimDueImports(
  executor: Executor,
  now: Date,
  next: Date,
  limit: number,
): Promise<ImportToSync[]> {
  const { rows } = await sql<ImportToSync>`
    UPDATE calendar_imports i SET next_sync_at = ${next}
    FROM businesses b
    WHERE b.id = i.business_id AND (i.business_id, i.id) IN (
      SELECT business_id, id FROM calendar_imports WHERE next_sync_at <= ${now}
      ORDER BY next_sync_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING i.id, i.business_id, i.resource_id, i.url, i.etag, i.parsed_at, b.timezone`.execute(executor);
  return rows;
}

/** Locks the import for the sync's writes; undefined when it was deleted meanwhile. */
export const lockImport = (executor: Executor, businessId: string, importId: string) =>
  executor
    .selectFrom('calendar_imports')
    .select('id')
    .where('business_id', '=', businessId)
    .where('id', '=', importId)
    .forUpdate()
    .executeTakeFirst();

export interface ImportedBlock {
  key: string;
  start: number;
  end: number;
}

/**
 * Makes the import's blocks exactly `blocks`: new ones inserted, moved ones updated in place,
 * the rest (events gone upstream) deleted. Unchanged blocks are not written.
 */
export async function replaceImportBlocks(
  executor: Executor,
  target: { businessId: string; importId: string; resourceId: string },
  blocks: ImportedBlock[],
): Promise<void> {
  await executor
    .deleteFrom('resource_blocks')
    .where('business_id', '=', target.businessId)
    .where('import_id', '=', target.importId)
    .$if(blocks.length > 0, (query) =>
      query.where(
        'import_key',
        'not in',
        blocks.map((block) => block.key),
      ),
    )
    .execute();
  if (blocks.length === 0) return;
  await executor
    .insertInto('resource_blocks')
    .values(
      blocks.map((block) => ({
        business_id: target.businessId,
        resource_id: target.resourceId,
        during: rangeLiteral(block.start, block.end),
        source: 'import',
        import_id: target.importId,
        import_key: block.key,
      })),
    )
    .onConflict((conflict) =>
      conflict
        .columns(['business_id', 'import_id', 'import_key'])
        .where('import_id', 'is not', null)
        .doUpdateSet({ during: (eb) => eb.ref('excluded.during') })
        .where(sql<boolean>`resource_blocks.during IS DISTINCT FROM excluded.during`),
    )
    .execute();
}

/** Makes the import due at `when`, for the next run of the sync job. */
export const markImportDue = (executor: Executor, businessId: string, importId: string, when: Date) =>
  executor
    .updateTable('calendar_imports')
    .set({ next_sync_at: when })
    .where('business_id', '=', businessId)
    .where('id', '=', importId)
    .returning(IMPORT_COLUMNS)
    .executeTakeFirst();

export const recordSync = (
  executor: Executor,
  businessId: string,
  importId: string,
  changes: {
    etag?: string | null;
    parsed_at?: Date;
    last_synced_at?: Date;
    last_error: string | null;
    next_sync_at: Date;
  },
) =>
  executor
    .updateTable('calendar_imports')
    .set(changes)
    .where('business_id', '=', businessId)
    .where('id', '=', importId)
    .returning(IMPORT_COLUMNS)
    .executeTakeFirst();
