import type { Area } from '../platform/area.ts';
import { streamRoutes } from './stream.routes.ts';

export const liveArea: Area = {
  async routes(app) {
    await app.register(streamRoutes);
  },
};
