import type { Area } from '../platform/area.ts';
import { auditRoutes } from './audit.routes.ts';

export const auditArea: Area = {
  async routes(app) {
    await app.register(auditRoutes);
  },
};
