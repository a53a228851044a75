import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

export const serviceRoutes: FastifyPluginAsyncTypebox = async () => {};
