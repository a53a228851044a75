import {
  type Insertable,
  type Kysely,
  type SelectExpression,
  type Selection,
  sql,
  type UpdateObject,
} from 'kysely';
import type { DB } from '../schema.ts';
import type { Executor } from './db.ts';

/** A table whose rows each belong to one business and are named by their own id. */
export type BusinessTable = {
  [T in keyof DB]: DB[T] extends { id: unknown; business_id: unknown } ? T : never;
}[keyof DB];

// biome-ignore lint/suspicious/noExplicitAny: Kysely types no builder over a table left generic; businessRows' signatures carry the named table's types
type AnyTables = Kysely<any>;

/** The row of the business with this id: a statement by id never reaches another business's row. */
const rowOf = (businessId: string, id: string) => sql<boolean>`business_id = ${businessId} and id = ${id}`;

/** The statements on one row of a business's `table`, each answering `columns` of it. */
export function businessRows<T extends BusinessTable, C extends SelectExpression<DB, T>>(
  table: T,
  columns: readonly C[],
) {
  type Row = Selection<DB, T, C>;
  const on = (executor: Executor) => executor as AnyTables;
  const name: string = table;
  const answered = columns as readonly string[];
  return {
    insert: (executor: Executor, businessId: string, values: Omit<Insertable<DB[T]>, 'business_id'>) =>
      on(executor)
        .insertInto(name)
        .values({ ...values, business_id: businessId })
        .returning(answered)
        .executeTakeFirstOrThrow() as Promise<Row>,
    /** The row, locked for the rest of the transaction; undefined when the business has none. */
    lock: (executor: Executor, businessId: string, id: string) =>
      on(executor)
        .selectFrom(name)
        .select(answered)
        .where(rowOf(businessId, id))
        .forUpdate()
        .executeTakeFirst() as Promise<Row | undefined>,
    update: (executor: Executor, businessId: string, id: string, changes: UpdateObject<DB, T>) =>
      on(executor)
        .updateTable(name)
        .set(changes as Record<string, unknown>)
        .where(rowOf(businessId, id))
        .returning(answered)
        .executeTakeFirstOrThrow() as Promise<Row>,
    /** Deletes the row; the removed row, or undefined when the business had none. */
    delete: (executor: Executor, businessId: string, id: string) =>
      on(executor)
        .deleteFrom(name)
        .where(rowOf(businessId, id))
        .returning(answered)
        .executeTakeFirst() as Promise<Row | undefined>,
  };
}
