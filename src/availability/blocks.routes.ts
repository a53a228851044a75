import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import { Type } from 'typebox';
import { recordAudit } from '../audit/audit.ts';
import { principalOf, requireBusiness } from '../platform/access.ts';
import { type Executor, withTx } from '../platform/db.ts';
import { invalidField, notFound } from '../platform/errors.ts';
import { afterRow, decodeCursorStrings, PageQuery, pageEnvelope, toPage } from '../platform/pagination.ts';
import { ErrorResponses, Nullable, Timestamp, Uuid } from '../platform/schemas.ts';
import { unknownResourceIds } from '../resources/resources.queries.ts';

const Block = Type.Object({
  id: Uuid,
  resource_id: Uuid,
  start_at: Timestamp,
  end_at: Timestamp,
  reason: Nullable(Type.String()),
  source: Nullable(Type.String()),
  created_at: Timestamp,
});

const ResourceParams = Type.Object({ resource_id: Uuid }, { additionalProperties: false });
const BlockParams = Type.Object({ resource_id: Uuid, block_id: Uuid }, { additionalProperties: false });

function selectBlocks(executor: Executor) {
  return executor
    .selectFrom('resource_blocks')
    .select([
      'id',
      'resource_id',
      'reason',
      'source',
      'created_at',
      sql<Date>`lower(during)`.as('start_at'),
      sql<Date>`upper(during)`.as('end_at'),
    ]);
}

type BlockRow = {
  id: string;
  resource_id: string;
  reason: string | null;
  source: string | null;
  created_at: Date;
  start_at: Date;
  end_at: Date;
};
const toBlock = (row: BlockRow) => ({
  ...row,
  start_at: row.start_at.toISOString(),
  end_at: row.end_at.toISOString(),
  created_at: row.created_at.toISOString(),
});

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

/** External busy blocks (calendar sync, maintenance): a blocked resource offers no slots in that period. */
export const blockRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/v1/manage/resources/:resource_id/blocks',
    {
      onRequest: requireBusiness({ scope: 'write' }),
      schema: {
        tags: ['Resources'],
        summary: 'Block a resource for a period (external busy time)',
        params: ResourceParams,
        body: Type.Object(
          {
            start_at: Timestamp,
            end_at: Timestamp,
            reason: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
            source: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
          },
          { additionalProperties: false },
        ),
        response: { 201: Block, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const { start_at, end_at, reason = null, source = null } = request.body;
      const start = instantOf('start_at', start_at);
      const end = instantOf('end_at', end_at);
      if (!(end > start)) throw invalidField('end_at', 'must be after start_at');
      const block = await withTx(app.db, async (tx) => {
        await assertResource(tx, principal.businessId, request.params.resource_id);
        const { id } = await tx
          .insertInto('resource_blocks')
          .values({
            business_id: principal.businessId,
            resource_id: request.params.resource_id,
            during: `[${new Date(start).toISOString()},${new Date(end).toISOString()})`,
            reason,
            source,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        const created = toBlock(await selectBlocks(tx).where('id', '=', id).executeTakeFirstOrThrow());
        await recordAudit(tx, principal, {
          action: 'resource.block_added',
          entityType: 'resource',
          entityId: created.resource_id,
          after: created,
        });
        return created;
      });
      return reply.status(201).send(block);
    },
  );

  app.get(
    '/v1/manage/resources/:resource_id/blocks',
    {
      onRequest: requireBusiness({ scope: 'read' }),
      schema: {
        tags: ['Resources'],
        summary: "List a resource's blocks, oldest first; `from`/`to` keep those overlapping the period",
        params: ResourceParams,
        querystring: Type.Object(
          { ...PageQuery, from: Type.Optional(Timestamp), to: Type.Optional(Timestamp) },
          { additionalProperties: false },
        ),
        response: { 200: pageEnvelope(Block), ...ErrorResponses },
      },
    },
    async (request) => {
      const { businessId } = principalOf(request);
      await assertResource(app.db, businessId, request.params.resource_id);
      const limit = request.query.limit ?? 50;
      const after = decodeCursorStrings(request.query.cursor, 1);
      let query = selectBlocks(app.db)
        .where('resource_id', '=', request.params.resource_id)
        .orderBy('created_at')
        .orderBy('id')
        .limit(limit + 1);
      if (request.query.from) {
        query = query.where(sql<boolean>`upper(during) > ${new Date(instantOf('from', request.query.from))}`);
      }
      if (request.query.to) {
        query = query.where(sql<boolean>`lower(during) < ${new Date(instantOf('to', request.query.to))}`);
      }
      if (after) query = query.where(afterRow('resource_blocks', after[0]!));
      return toPage(await query.execute(), limit, (row) => [row.id], toBlock);
    },
  );

  app.delete(
    '/v1/manage/resources/:resource_id/blocks/:block_id',
    {
      onRequest: requireBusiness({ scope: 'write' }),
      schema: {
        tags: ['Resources'],
        summary: 'Remove a block',
        params: BlockParams,
        response: { 204: Type.Null(), ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      await withTx(app.db, async (tx) => {
        const removed = await tx
          .deleteFrom('resource_blocks')
          .where('id', '=', request.params.block_id)
          .where('resource_id', '=', request.params.resource_id)
          .where('business_id', '=', principal.businessId)
          .returning(['id', 'resource_id'])
          .executeTakeFirst();
        if (!removed) throw notFound('block');
        await recordAudit(tx, principal, {
          action: 'resource.block_removed',
          entityType: 'resource',
          entityId: removed.resource_id,
          before: { block_id: removed.id },
        });
      });
      return reply.status(204).send(null);
    },
  );
};
