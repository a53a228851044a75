import type { Area } from '../platform/area.ts';
import { feedRoutes } from './feeds.routes.ts';
import { calendarImportJobs } from './imports.jobs.ts';
import { importRoutes } from './imports.routes.ts';

export const calendarsArea: Area = {
  async routes(app) {
    await app.register(feedRoutes);
    await app.register(importRoutes);
  },
  jobs: (app) =>
    calendarImportJobs({
      db: app.db,
      fetcher: app.calendarFetcher,
      parser: app.calendarParser,
      clock: app.clock,
      changes: app.changes,
    }),
};
