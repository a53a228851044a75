import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

export const blockRoutes: FastifyPluginAsyncTypebox = async () => {};
