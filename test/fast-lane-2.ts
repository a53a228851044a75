import { runInThisProcess } from './fast-lane.ts';
import { fastLane } from './lanes.ts';

/** One of the fast lane's processes (`test/fast-lane.ts`, `test/run.ts`). */
runInThisProcess('fast lane', fastLane());
