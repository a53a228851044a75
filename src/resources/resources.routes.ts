import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

export const resourceRoutes: FastifyPluginAsyncTypebox = async () => {};
