import type { Area } from '../platform/area.ts';
import { statsRoutes } from './stats.routes.ts';

export const statsArea: Area = {
  async routes(app) {
    await app.register(statsRoutes);
  },
};
