import type { FastifyInstance } from 'fastify';

export async function registerIdempotency(_app: FastifyInstance): Promise<void> {}
