import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

export const waitlistRoutes: FastifyPluginAsyncTypebox = async () => {};
