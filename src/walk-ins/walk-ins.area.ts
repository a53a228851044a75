import type { Area } from '../platform/area.ts';
import { walkInRoutes } from './walk-ins.routes.ts';

export const walkInsArea: Area = {
  async routes(app) {
    await app.register(walkInRoutes);
  },
};
