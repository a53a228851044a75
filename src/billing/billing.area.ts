import type { EventHandlers } from '../payments/inbound.events.ts';
import type { Area } from '../platform/area.ts';
import { billingEventHandlers } from './billing.events.ts';
import { billingJobs } from './billing.jobs.ts';
import { billingRoutes } from './billing.routes.ts';
import { subscriptionRoutes } from './subscription.routes.ts';

export const billingArea: Area & { handlers: EventHandlers } = {
  async routes(app) {
    await app.register(subscriptionRoutes);
    await app.register(billingRoutes);
  },
  jobs: (app) => billingJobs(app.db, app.payments, app.clock, app.log),
  handlers: billingEventHandlers,
};
