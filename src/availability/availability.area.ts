import type { Area } from '../platform/area.ts';
import { availabilityRoutes } from './availability.routes.ts';
import { blockRoutes } from './blocks.routes.ts';

export const availabilityArea: Area = {
  async routes(app) {
    await app.register(availabilityRoutes);
    await app.register(blockRoutes);
  },
};
