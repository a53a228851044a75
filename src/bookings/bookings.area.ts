import type { Area } from '../platform/area.ts';
import { bookingRoutes } from './bookings.routes.ts';
import { customerDetailRoutes } from './customer-detail.routes.ts';
import { seriesRoutes } from './series.routes.ts';
import { staffBookingRoutes } from './staff-bookings.routes.ts';

export const bookingsArea: Area = {
  async routes(app) {
    await app.register(bookingRoutes);
    await app.register(staffBookingRoutes);
    await app.register(customerDetailRoutes);
    await app.register(seriesRoutes);
  },
};
