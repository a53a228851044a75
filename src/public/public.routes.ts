import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

export const publicRoutes: FastifyPluginAsyncTypebox = async () => {};
