import type { Area } from '../platform/area.ts';
import { widgetRoutes } from './widget.routes.ts';

export const widgetArea: Area = {
  async routes(app) {
    await app.register(widgetRoutes);
  },
};
