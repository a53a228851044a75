import type { Area } from '../platform/area.ts';
import { blackoutRoutes } from './blackouts.routes.ts';
import { hoursRoutes } from './hours.routes.ts';
import { periodsRoutes } from './periods.routes.ts';
import { settingsRoutes } from './settings.routes.ts';

export const settingsArea: Area = {
  async routes(app) {
    await app.register(settingsRoutes);
    await app.register(hoursRoutes);
    await app.register(periodsRoutes);
    await app.register(blackoutRoutes);
  },
};
