import type { Area } from '../platform/area.ts';
import { mapsBookingRoutes } from './maps-booking.routes.ts';
import { partnerRoutes } from './partners.routes.ts';

export const partnersArea: Area = {
  async routes(app) {
    await app.register(partnerRoutes);
    await app.register(mapsBookingRoutes);
  },
};
