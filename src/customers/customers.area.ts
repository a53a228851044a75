import type { Area } from '../platform/area.ts';
import { customerRoutes } from './customers.routes.ts';
import { profileRoutes } from './profiles.routes.ts';
import { eraseGuestsPastRetention } from './retention.jobs.ts';

export const customersArea: Area = {
  async routes(app) {
    await app.register(customerRoutes);
    await app.register(profileRoutes);
  },
  jobs: (app) => [
    { name: 'guest-retention', everyMs: 3_600_000, run: () => eraseGuestsPastRetention(app.db) },
  ],
};
