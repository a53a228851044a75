import type { Area } from '../platform/area.ts';
import { paymentsRoutes } from './payments.routes.ts';
import { simulatorRoutes } from './simulator.routes.ts';

/** `isSandbox`: which businesses are sandboxes, which the simulator's pages serve without a payment account. */
export const paymentsArea = (deps: { isSandbox: (businessId: string) => Promise<boolean> }): Area => ({
  async routes(app) {
    await app.register(paymentsRoutes);
    await app.register(simulatorRoutes, deps);
  },
});
