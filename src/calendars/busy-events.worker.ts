import { parentPort, workerData } from 'node:worker_threads';
import { busyPeriods } from './busy-events.rules.ts';
import { SyncFailed } from './sync-failure.model.ts';

/** One calendar parsed in a thread of its own (`calendar-parser.adapter.ts` starts it), then the thread ends. */
const { text, now, timeZone } = workerData as { text: string; now: number; timeZone: string };
try {
  parentPort?.postMessage({ periods: busyPeriods(text, now, timeZone) });
} catch (error) {
  if (!(error instanceof SyncFailed)) throw error;
  parentPort?.postMessage({ failure: error.failure });
}
