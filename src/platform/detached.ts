import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The context of no request, taken as the process loads this module: no deadline, no business's
 * share of the database.
 */
const outsideRequests = AsyncLocalStorage.snapshot();

/**
 * Runs `work`, and all it sets going (timers, later polls), outside the request that calls it:
 * for work a request only hurries that serves the whole process, such as reading the change log
 * or a job's run. Within the request's context it would carry the request's deadline and count
 * against its business's share long after the request was answered, and when that business is
 * at its share the whole process would wait for it.
 */
export function detached<T>(work: () => T): T {
  return outsideRequests(work);
}
