import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import { Type } from 'typebox';
import { AppError } from './errors.ts';
import { errorResponses } from './schemas.ts';

const Status = Type.Object({ status: Type.String() });

export const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/healthz',
    {
      schema: {
        operationId: 'getHealth',
        tags: ['Health'],
        summary: 'The process is up',
        security: [],
        response: { 200: Status },
      },
    },
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/readyz',
    {
      schema: {
        operationId: 'getReadiness',
        tags: ['Health'],
        summary: 'The database answers',
        security: [],
        response: { 200: Status, ...errorResponses(503) },
      },
    },
    async () => {
      try {
        await sql`SELECT 1`.execute(app.db);
      } catch {
        throw new AppError('not_ready', 'the database is not reachable');
      }
      return { status: 'ready' };
    },
  );
};
