import type { Area } from '../platform/area.ts';
import { apiKeyRoutes } from './api-keys.routes.ts';
import { businessRoutes } from './business.routes.ts';
import { developerRoutes } from './developers.routes.ts';
import { staffRoutes } from './staff.routes.ts';

export const developersArea: Area = {
  async routes(app) {
    await app.register(developerRoutes);
    await app.register(staffRoutes);
    await app.register(apiKeyRoutes);
    await app.register(businessRoutes);
  },
};
