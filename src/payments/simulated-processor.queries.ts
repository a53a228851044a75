import { sql } from 'kysely';
import type { Db } from '../platform/db.ts';

/** The simulated processor's objects (`simulated_processor_objects`), each its processor JSON. */

/** Stores an object under its id unless an object of the same idempotency key exists: undefined then. */
export const insertObject = (db: Db, id: string, object: unknown, idempotencyKey: string | null) =>
  db
    .insertInto('simulated_processor_objects')
    .values({ id, object: JSON.stringify(object), idempotency_key: idempotencyKey })
    .onConflict((oc) => oc.column('idempotency_key').doNothing())
    .returning('object')
    .executeTakeFirst();

export const objectByIdempotencyKey = (db: Db, idempotencyKey: string | null) =>
  db
    .selectFrom('simulated_processor_objects')
    .select('object')
    .where('idempotency_key', '=', idempotencyKey)
    .executeTakeFirstOrThrow();

export const objectById = (db: Db, id: string) =>
  db.selectFrom('simulated_processor_objects').select('object').where('id', '=', id).executeTakeFirst();

/**
 * Merges `changes` into an object; with `guard`, only while the object's `guard.field` holds one
 * of `guard.from` (compared as JSON text). Undefined when no object was changed.
 */
export const mergeIntoObject = (
  db: Db,
  id: string,
  changes: Record<string, unknown>,
  guard?: { field: string; from: readonly string[] },
) => {
  let query = db
    .updateTable('simulated_processor_objects')
    .set({ object: sql`object || ${JSON.stringify(changes)}::jsonb`, updated_at: new Date() })
    .where('id', '=', id);
  if (guard) query = query.where(sql<string>`object->>${guard.field}`, 'in', guard.from);
  return query.returning('object').executeTakeFirst();
};

/** The newest object of a type whose fields hold the given text. */
export const latestObject = (db: Db, type: string, fields: Record<string, string>) => {
  let query = db
    .selectFrom('simulated_processor_objects')
    .select('object')
    .where(sql<string>`object->>'object'`, '=', type);
  for (const [field, value] of Object.entries(fields)) {
    query = query.where(sql<string>`object->>${field}`, '=', value);
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
};
