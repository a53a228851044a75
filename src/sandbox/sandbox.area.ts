import type { Area } from '../platform/area.ts';
import { sandboxRoutes } from './sandbox.routes.ts';

export const sandboxArea: Area = {
  async routes(app) {
    await app.register(sandboxRoutes);
  },
};
