import { after } from 'node:test';
import { shareOneBrowser } from './browser.ts';
import { runInThisProcess } from './fast-lane.ts';
import { browserLaneHalf } from './lanes.ts';

/** The second half of the browser lane: its files in one process, with one browser (`test/lanes.ts`). */
after(shareOneBrowser());
runInThisProcess(browserLaneHalf(1));
