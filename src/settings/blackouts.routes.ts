import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

export const blackoutRoutes: FastifyPluginAsyncTypebox = async () => {};
