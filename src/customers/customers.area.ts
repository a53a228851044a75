import type { Area } from '../platform/area.ts';
import { customerRoutes } from './customers.routes.ts';

export const customersArea: Area = {
  async routes(app) {
    await app.register(customerRoutes);
  },
};
