import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

export const settingsRoutes: FastifyPluginAsyncTypebox = async () => {};
