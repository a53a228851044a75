import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

export const staffBookingRoutes: FastifyPluginAsyncTypebox = async () => {};
