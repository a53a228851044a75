import type { Area } from '../platform/area.ts';
import { serviceRoutes } from './services.routes.ts';

export const servicesArea: Area = {
  async routes(app) {
    await app.register(serviceRoutes);
  },
};
