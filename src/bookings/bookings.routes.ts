import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

export const bookingRoutes: FastifyPluginAsyncTypebox = async () => {};
