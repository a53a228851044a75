import { type AuditActor, recordAudit } from '../audit/audit.service.ts';
import type { Executor, Tx } from '../platform/db.ts';
import { conflict, invalidField, notFound } from '../platform/errors.ts';
import type { PageRequest } from '../platform/pagination.ts';
import { reasonOrNull } from '../platform/schemas.ts';
import { unknownResourceIds } from '../resources/resources.queries.ts';
import { deleteBlock, insertBlock, isImportedBlock, listBlocks } from './blocks.queries.ts';
import { toBlockView } from './blocks.view.ts';

/** Epoch milliseconds of a timestamp the schema let through but JavaScript cannot place (a leap second). */
function instantOf(field: string, value: string): number {
  const instant = Date.parse(value);
  if (Number.isNaN(instant)) throw invalidField(field, 'is not a moment that exists');
  return instant;
}

async function assertResource(executor: Executor, businessId: string, resourceId: string) {
  const [unknown] = await unknownResourceIds(executor, businessId, [resourceId]);
  if (unknown) throw notFound('resource');
}

export interface BlockInput {
  start_at: string;
  end_at: string;
  reason?: string | null;
  source?: string | null;
}

export async function addBlock(tx: Tx, actor: AuditActor, resourceId: string, input: BlockInput) {
  const start = instantOf('start_at', input.start_at);
  const end = instantOf('end_at', input.end_at);
  if (!(end > start)) throw invalidField('end_at', 'must be after start_at');
  await assertResource(tx, actor.businessId, resourceId);
  const block = toBlockView(
    await insertBlock(tx, actor.businessId, {
      resourceId,
      start,
      end,
      reason: reasonOrNull(input.reason),
      source: input.source ?? null,
    }),
  );
  await recordAudit(tx, actor, {
    action: 'resource.block_added',
    entityType: 'resource',
    entityId: block.resource_id,
    after: block,
  });
  return block;
}

export async function listResourceBlocks(
  executor: Executor,
  page: PageRequest,
  resourceId: string,
  period: { from?: string; to?: string },
) {
  await assertResource(executor, page.owner, resourceId);
  return listBlocks(
    executor,
    page,
    resourceId,
    {
      from: period.from === undefined ? undefined : instantOf('from', period.from),
      to: period.to === undefined ? undefined : instantOf('to', period.to),
    },
    toBlockView,
  );
}

export async function removeBlock(
  tx: Tx,
  actor: AuditActor,
  resourceId: string,
  blockId: string,
): Promise<void> {
  const removed = await deleteBlock(tx, actor.businessId, resourceId, blockId);
  // The next sync would bring an imported block back: it goes with its event, or with its import.
  if (!removed && (await isImportedBlock(tx, actor.businessId, resourceId, blockId))) {
    throw conflict('this block comes from a calendar import: remove the event there, or delete the import');
  }
  if (!removed) throw notFound('block');
  await recordAudit(tx, actor, {
    action: 'resource.block_removed',
    entityType: 'resource',
    entityId: removed.resource_id,
    before: { block_id: removed.id },
  });
}
