import type { FastifyInstance } from 'fastify';
import type { Job } from './jobs.ts';

/**
 * One business area as the app composes it (`app.ts` loops over the list): its routes, and the
 * jobs it runs on a timer, both made from what the app holds (its database, clock, services).
 */
export interface Area {
  /** Registers the area's routes, in the order the API reference lists them. */
  routes(app: FastifyInstance): Promise<void>;
  /** The area's scheduled jobs; a resource they hold is closed with the app. */
  jobs?(app: FastifyInstance): Job[];
}
