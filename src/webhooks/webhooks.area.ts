import type { Area } from '../platform/area.ts';
import { webhookRoutes } from './webhooks.routes.ts';

export const webhooksArea: Area = {
  async routes(app) {
    await app.register(webhookRoutes);
  },
  jobs: (app) => app.webhooks.dispatcher.jobs(),
};
