import { after } from 'node:test';
import { shareOneBrowser } from './browser.ts';
import { runInThisProcess } from './fast-lane.ts';
import { BROWSER_LANE } from './lanes.ts';

/** One of the browser lane's two processes, with one browser (`test/fast-lane.ts`). */
after(shareOneBrowser());
runInThisProcess('browser lane', BROWSER_LANE);
