import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

export const hoursRoutes: FastifyPluginAsyncTypebox = async () => {};
