import type { Area } from '../platform/area.ts';
import { dashboardRoutes } from './dashboard.routes.ts';

export const dashboardArea: Area = {
  async routes(app) {
    await app.register(dashboardRoutes);
  },
};
