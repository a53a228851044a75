import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { areaRoutes } from '../platform/change-route.ts';
import { PageQuery, pageEnvelope, pageOf } from '../platform/pagination.ts';
import { errorResponses, example, Nullable, Timestamp, Uuid } from '../platform/schemas.ts';
import { addBlock, listResourceBlocks, removeBlock } from './blocks.service.ts';
import { BlockView } from './blocks.view.ts';

const ResourceParams = Type.Object({ resource_id: Uuid }, { additionalProperties: false });
const BlockParams = Type.Object({ resource_id: Uuid, block_id: Uuid }, { additionalProperties: false });

/** External busy blocks (calendar sync, maintenance): a blocked resource offers no slots in that period. */
export const blockRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const routes = areaRoutes(app, { tags: ['Resources'] });

  routes.change('POST', '/v1/manage/resources/:resource_id/blocks', {
    operationId: 'createResourceBlock',
    summary: 'Block a resource for a period (external busy time)',
    params: ResourceParams,
    body: example(
      Type.Object(
        {
          start_at: Timestamp,
          end_at: Timestamp,
          reason: Type.Optional(
            Nullable(
              Type.String({ maxLength: 500, description: 'empty or only white space means none (null)' }),
            ),
          ),
          source: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
        },
        { additionalProperties: false },
      ),
      {
        start_at: '2026-12-04T18:00:00+01:00',
        end_at: '2026-12-04T20:00:00+01:00',
        reason: 'Private event',
      },
    ),
    response: { 201: BlockView },
    change: (tx, principal, { params, body }) => addBlock(tx, principal, params.resource_id, body),
  });

  routes.route('GET', '/v1/manage/resources/:resource_id/blocks', {
    operationId: 'listResourceBlocks',
    summary: "List a resource's blocks, oldest first; `from`/`to` keep those overlapping the period",
    params: ResourceParams,
    querystring: Type.Object(
      { ...PageQuery, from: Type.Optional(Timestamp), to: Type.Optional(Timestamp) },
      { additionalProperties: false },
    ),
    response: { 200: pageEnvelope(BlockView) },
    handler: async (request) =>
      listResourceBlocks(app.db, pageOf(request), request.params.resource_id, {
        from: request.query.from,
        to: request.query.to,
      }),
  });

  routes.remove('/v1/manage/resources/:resource_id/blocks/:block_id', {
    operationId: 'deleteResourceBlock',
    summary: 'Remove a block; one a calendar import made is 409 (it goes with its event or its import)',
    params: BlockParams,
    refusals: errorResponses(409),
    change: (tx, principal, { params }) => removeBlock(tx, principal, params.resource_id, params.block_id),
  });
};
