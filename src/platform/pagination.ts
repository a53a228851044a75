import { type RawBuilder, sql } from 'kysely';
import { type TSchema, Type } from 'typebox';
import { invalidField } from './errors.ts';
import { isUuid } from './schemas.ts';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

/** Query fields every paginated list accepts. */
export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE })),
  cursor: Type.Optional(Type.String({ maxLength: 500 })),
};

export const pageEnvelope = <T extends TSchema>(item: T) =>
  Type.Object({
    items: Type.Array(item),
    next_cursor: Type.Union([Type.String(), Type.Null()]),
    has_more: Type.Boolean(),
  });

export type CursorValue = string | number | boolean | null;

/** The 422 for a cursor this list did not make (or made with values it can no longer take). */
export const foreignCursor = () => invalidField('cursor', 'is not a cursor returned by this list');

/** A cursor is the keyset position of the last item served, opaque to clients. */
export function encodeCursor(values: CursorValue[]): string {
  return Buffer.from(JSON.stringify(values)).toString('base64url');
}

/** Decodes a cursor made by `encodeCursor` with `arity` values; anything else is a 422 naming `cursor`. */
export function decodeCursor(cursor: string | undefined, arity: number): CursorValue[] | null {
  if (cursor === undefined || cursor === '') return null;
  try {
    const values = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(values) &&
      values.length === arity &&
      values.every((v) => v === null || ['string', 'number', 'boolean'].includes(typeof v))
    ) {
      return values;
    }
  } catch {}
  throw foreignCursor();
}

export function decodeCursorStrings(cursor: string | undefined, arity: number): string[] | null {
  const values = decodeCursor(cursor, arity);
  if (values && !values.every((v) => typeof v === 'string')) throw foreignCursor();
  return values as string[] | null;
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
  has_more: boolean;
}

/**
 * Builds the envelope from rows fetched with `limit + 1`: the extra row only says that more exist.
 * `keyOf` gives the keyset values of a row, in the list's sort order.
 */
export function toPage<R, T>(
  rows: R[],
  limit: number,
  keyOf: (row: R) => CursorValue[],
  map: (row: R) => T,
): Page<T> {
  const hasMore = rows.length > limit;
  const served = hasMore ? rows.slice(0, limit) : rows;
  return {
    items: served.map(map),
    next_cursor: hasMore ? encodeCursor(keyOf(served[served.length - 1]!)) : null,
    has_more: hasMore,
  };
}

/**
 * Keyset condition "comes after the row with this id" for lists ordered by `(created_at, id)`.
 * Comparing against the stored row keeps the database's microsecond precision, which a timestamp
 * carried through the cursor would lose.
 */
export function afterRow(table: string, id: string): RawBuilder<boolean> {
  if (!isUuid(id)) throw foreignCursor();
  return sql<boolean>`(${sql.ref(`${table}.created_at`)}, ${sql.ref(`${table}.id`)}) > (SELECT created_at, id FROM ${sql.table(table)} WHERE id = ${id})`;
}
