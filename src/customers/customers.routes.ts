import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

export const customerRoutes: FastifyPluginAsyncTypebox = async () => {};
