import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

export const availabilityRoutes: FastifyPluginAsyncTypebox = async () => {};
