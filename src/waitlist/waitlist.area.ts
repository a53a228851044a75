import type { Area } from '../platform/area.ts';
import { withTx } from '../platform/db.ts';
import { offerRoutes } from './offers.routes.ts';
import { runOffers } from './offers.service.ts';
import { waitlistRoutes } from './waitlist.routes.ts';

export const waitlistArea: Area = {
  async routes(app) {
    await app.register(waitlistRoutes);
    await app.register(offerRoutes);
  },
  jobs: (app) => [
    {
      name: 'waitlist-offers',
      everyMs: 15_000,
      run: () =>
        runOffers(
          (work) => withTx(app.db, work),
          app.availability,
          app.config.publicBaseUrl,
          app.clock.now(),
        ),
    },
  ],
};
