import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { recordAudit } from '../audit/audit.ts';
import { principalOf, requireBusiness } from '../platform/access.ts';
import { withTx } from '../platform/db.ts';
import { invalidField, notFound } from '../platform/errors.ts';
import {
  decodeCursorStrings,
  foreignCursor,
  PageQuery,
  pageEnvelope,
  toPage,
} from '../platform/pagination.ts';
import { DateString, ErrorResponses, IdParams, isDate, isUuid, Nullable } from '../platform/schemas.ts';
import { BLACKOUT_COLUMNS, BlackoutView, toBlackoutView } from './blackouts.queries.ts';

const Reason = Nullable(Type.String({ maxLength: 500, description: 'shown publicly' }));

const CreateBody = Type.Object(
  {
    start_date: { ...DateString, description: 'first closed day (inclusive)' },
    end_date: { ...DateString, description: 'last closed day (inclusive), not before start_date' },
    reason: Type.Optional(Reason),
  },
  { additionalProperties: false },
);
const PatchBody = Type.Object(
  {
    start_date: Type.Optional(DateString),
    end_date: Type.Optional(DateString),
    reason: Type.Optional(Reason),
  },
  { additionalProperties: false },
);

function checkRange(startDate: string, endDate: string): void {
  if (endDate < startDate) throw invalidField('end_date', `must not be before start_date (${startDate})`);
}

export const blackoutRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/manage/blackout-dates',
    {
      onRequest: requireBusiness({ scope: 'read' }),
      schema: {
        tags: ['Settings'],
        summary: 'List blackout dates by start date, past ones included',
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: pageEnvelope(BlackoutView), ...ErrorResponses },
      },
    },
    async (request) => {
      const { businessId } = principalOf(request);
      const limit = request.query.limit ?? 50;
      const after = decodeCursorStrings(request.query.cursor, 2);
      if (after && !(isDate(after[0]!) && isUuid(after[1]!))) {
        throw foreignCursor();
      }
      let query = app.db
        .selectFrom('blackout_dates')
        .select(BLACKOUT_COLUMNS)
        .where('business_id', '=', businessId)
        .orderBy('start_date')
        .orderBy('id')
        .limit(limit + 1);
      if (after) {
        query = query.where((eb) => eb(eb.refTuple('start_date', 'id'), '>', eb.tuple(after[0]!, after[1]!)));
      }
      return toPage(await query.execute(), limit, (row) => [row.start_date, row.id], toBlackoutView);
    },
  );

  app.post(
    '/v1/manage/blackout-dates',
    {
      onRequest: requireBusiness({ scope: 'write' }),
      schema: {
        tags: ['Settings'],
        summary: 'Close the business on a range of whole days',
        body: CreateBody,
        response: { 201: BlackoutView, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const { start_date, end_date, reason = null } = request.body;
      checkRange(start_date, end_date);
      const created = await withTx(app.db, async (tx) => {
        const row = await tx
          .insertInto('blackout_dates')
          .values({ business_id: principal.businessId, start_date, end_date, reason })
          .returning(BLACKOUT_COLUMNS)
          .executeTakeFirstOrThrow();
        await recordAudit(tx, principal, {
          action: 'settings.blackout_added',
          entityType: 'blackout_date',
          entityId: row.id,
          after: toBlackoutView(row),
        });
        return row;
      });
      return reply.status(201).send(toBlackoutView(created));
    },
  );

  app.patch(
    '/v1/manage/blackout-dates/:blackout_id',
    {
      onRequest: requireBusiness({ scope: 'write' }),
      schema: {
        tags: ['Settings'],
        summary: 'Change the dates or the reason of a blackout',
        params: IdParams('blackout_id'),
        body: PatchBody,
        response: { 200: BlackoutView, ...ErrorResponses },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const patch = request.body;
      return withTx(app.db, async (tx) => {
        const before = await tx
          .selectFrom('blackout_dates')
          .select(BLACKOUT_COLUMNS)
          .where('id', '=', request.params.blackout_id)
          .where('business_id', '=', principal.businessId)
          .forUpdate()
          .executeTakeFirst();
        if (!before) throw notFound('blackout date');
        const merged = { ...before, ...patch };
        checkRange(merged.start_date, merged.end_date);
        const changed =
          merged.start_date !== before.start_date ||
          merged.end_date !== before.end_date ||
          merged.reason !== before.reason;
        if (!changed) return toBlackoutView(before);
        const after = await tx
          .updateTable('blackout_dates')
          .set({ start_date: merged.start_date, end_date: merged.end_date, reason: merged.reason })
          .where('id', '=', before.id)
          .returning(BLACKOUT_COLUMNS)
          .executeTakeFirstOrThrow();
        await recordAudit(tx, principal, {
          action: 'settings.blackout_updated',
          entityType: 'blackout_date',
          entityId: before.id,
          before: toBlackoutView(before),
          after: toBlackoutView(after),
        });
        return toBlackoutView(after);
      });
    },
  );

  app.delete(
    '/v1/manage/blackout-dates/:blackout_id',
    {
      onRequest: requireBusiness({ scope: 'write' }),
      schema: {
        tags: ['Settings'],
        summary: 'Remove a blackout: the days are bookable again',
        params: IdParams('blackout_id'),
        response: { 204: Type.Null(), ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      await withTx(app.db, async (tx) => {
        const removed = await tx
          .deleteFrom('blackout_dates')
          .where('id', '=', request.params.blackout_id)
          .where('business_id', '=', principal.businessId)
          .returning(BLACKOUT_COLUMNS)
          .executeTakeFirst();
        if (!removed) throw notFound('blackout date');
        await recordAudit(tx, principal, {
          action: 'settings.blackout_removed',
          entityType: 'blackout_date',
          entityId: removed.id,
          before: toBlackoutView(removed),
        });
      });
      return reply.status(204).send(null);
    },
  );
};
