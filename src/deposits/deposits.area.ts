import type { EventHandlers } from '../payments/inbound.events.ts';
import type { Area } from '../platform/area.ts';
import { depositEventHandlers } from './deposits.events.ts';
import { depositJobs } from './deposits.jobs.ts';
import { depositRoutes } from './deposits.routes.ts';

export const depositsArea: Area & { handlers: EventHandlers } = {
  async routes(app) {
    await app.register(depositRoutes);
  },
  jobs: (app) => depositJobs(app.deposits, app.clock),
  handlers: depositEventHandlers,
};
