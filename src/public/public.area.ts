import type { Area } from '../platform/area.ts';
import { guestBookingRoutes } from './guest-bookings.routes.ts';
import { publicRoutes } from './public.routes.ts';

export const publicArea: Area = {
  async routes(app) {
    await app.register(publicRoutes);
    await app.register(guestBookingRoutes);
  },
};
