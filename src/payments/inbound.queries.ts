import type { Tx } from '../platform/db.ts';

/** Records a processor event's id once: undefined when it was recorded before (a redelivery). */
export const recordProcessorEvent = (tx: Tx, id: string, type: string) =>
  tx
    .insertInto('processor_events')
    .values({ id, type })
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id')
    .executeTakeFirst();
