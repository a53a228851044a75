import { runInThisProcess } from './fast-lane.ts';
import { fastLaneHalf } from './lanes.ts';

/** The second half of the fast lane, in one process (`test/fast-lane.ts`). */
runInThisProcess(fastLaneHalf(1));
