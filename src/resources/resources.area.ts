import type { Area } from '../platform/area.ts';
import { combinationRoutes } from './combinations.routes.ts';
import { resourceRoutes } from './resources.routes.ts';

export const resourcesArea: Area = {
  async routes(app) {
    await app.register(resourceRoutes);
    await app.register(combinationRoutes);
  },
};
