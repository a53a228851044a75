import type { FastifyInstance } from 'fastify';

export async function registerRateLimit(_app: FastifyInstance): Promise<void> {}
