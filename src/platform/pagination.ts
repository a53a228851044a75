import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { type SelectQueryBuilder, sql } from 'kysely';
import { type TSchema, Type } from 'typebox';
import type { DB } from '../schema.ts';
import { invalidField } from './errors.ts';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

/** Query fields every paginated list accepts. */
export const PageQuery = {
  limit: Type.Optional(
    Type.Integer({ format: 'int32', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE }),
  ),
  cursor: Type.Optional(Type.String({ maxLength: 500 })),
};

export const pageEnvelope = <T extends TSchema>(item: T) =>
  Type.Object({
    items: Type.Array(item),
    next_cursor: Type.Union([Type.String(), Type.Null()]),
    has_more: Type.Boolean(),
  });

/**
 * How a list route is guarded, described and read (`list`, the page `pageOf` asks for): the rest
 * of its declaration is the same for every list.
 */
export interface ListRoute {
  onRequest: onRequestAsyncHookHandler;
  operationId: string;
  tags: string[];
  summary: string;
  item: TSchema;
  list: (request: FastifyRequest) => Promise<Page<unknown>>;
}

/** Declares `GET url`, answering a page of the list, as `ListRoute` says. */
export function listRoute(
  app: FastifyInstance,
  url: string,
  { onRequest, item, list, ...texts }: ListRoute,
): void {
  app.get(
    url,
    {
      onRequest,
      schema: {
        ...texts,
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: pageEnvelope(item) },
      },
    },
    list,
  );
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
  has_more: boolean;
}

/** The 422 for a cursor this list did not make for this business. */
export const foreignCursor = () => invalidField('cursor', 'is not a cursor returned by this list');

const MAC_BYTES = 16;

/**
 * A cursor is the sort values of the last item served, signed for one list of one business.
 * Carrying the values (not a row id to look up) keeps the next page intact when that row is
 * deleted; the signature means a forged cursor, or one from another business's list, is refused
 * before it reaches a query, so it can neither probe other rows nor feed the database bad values.
 */
export class CursorCodec {
  private readonly key: Buffer;

  constructor(key: Buffer) {
    this.key = key;
  }

  private mac(scope: string, payload: string): Buffer {
    return createHmac('sha256', this.key).update(`${scope}\n${payload}`).digest().subarray(0, MAC_BYTES);
  }

  encode(scope: string, values: string[]): string {
    const payload = Buffer.from(JSON.stringify(values)).toString('base64url');
    return `${payload}.${this.mac(scope, payload).toString('base64url')}`;
  }

  /** The values of a cursor made by `encode` for `scope`; anything else is a 422 naming `cursor`. */
  decode(scope: string, cursor: string, arity: number): string[] {
    const [payload = '', signature = '', extra] = cursor.split('.');
    const given = Buffer.from(signature, 'base64url');
    const expected = this.mac(scope, payload);
    if (extra !== undefined || given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw foreignCursor();
    }
    const values: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    if (!Array.isArray(values) || values.length !== arity) throw foreignCursor();
    return values as string[];
  }
}

/** A sort column of a keyset list and the SQL type its cursor value is read back as. */
export interface SortKey {
  ref: string;
  type: 'uuid' | 'integer' | 'bigint' | 'date' | 'time' | 'timestamptz' | 'text';
}

/** Sorted by `ref`, then by the row's id (`id`), which makes the order total. */
export const sortedBy = (ref: string, type: SortKey['type'], id = 'id'): SortKey[] => [
  { ref, type },
  { ref: id, type: 'uuid' },
];

export interface KeysetList {
  /** Names the list in its cursors, so one list's cursor is refused by another. */
  name: string;
  /** The sort order; the last key must make it total (an id). */
  keys: SortKey[];
  direction?: 'asc' | 'desc';
}

export interface PageRequest {
  cursor?: string;
  limit?: number;
  /** Whose list it is (a business or developer id): cursors are only valid there. */
  owner: string;
  codec: CursorCodec;
}

declare module 'fastify' {
  interface FastifyInstance {
    cursors: CursorCodec;
  }
}

/** The page a list route was asked for, owned by the caller's business (or the `owner` given). */
export function pageOf(request: FastifyRequest, owner?: string): PageRequest {
  const query = request.query as { cursor?: string; limit?: number };
  const whose = owner ?? request.principal?.businessId;
  if (!whose) throw new Error('pageOf needs an owner: the route has no business principal');
  return { cursor: query.cursor, limit: query.limit, owner: whose, codec: request.server.cursors };
}

// biome-ignore lint/suspicious/noExplicitAny: the helper adds its own columns to any list's query
type AnySelect<O> = SelectQueryBuilder<DB, any, O>;

/**
 * One page of a keyset-paginated list: orders `query` by the list's keys, continues after the
 * cursor and builds the envelope, its items the rows as read unless `map` reshapes them. The sort
 * values travel as the database's own text, so a timestamp keeps its microseconds and a page
 * boundary never skips or repeats a row.
 */
export async function keysetPage<O, T = O>(
  query: AnySelect<O>,
  list: KeysetList,
  page: PageRequest,
  map: (row: O) => T = (row) => row as unknown as T,
): Promise<Page<T>> {
  const limit = page.limit ?? DEFAULT_PAGE_SIZE;
  const scope = `${list.name}:${page.owner}`;
  const desc = list.direction === 'desc';
  let q = query as AnySelect<Record<string, unknown>>;
  q = q.select(list.keys.map((key, i) => sql<string>`${sql.ref(key.ref)}::text`.as(`cursor_${i}`)));
  if (page.cursor) {
    const after = page.codec.decode(scope, page.cursor, list.keys.length);
    const columns = sql.join(list.keys.map((key) => sql.ref(key.ref)));
    const values = sql.join(list.keys.map((key, i) => sql`${after[i]}::${sql.raw(key.type)}`));
    q = q.where(sql<boolean>`(${columns}) ${sql.raw(desc ? '<' : '>')} (${values})`);
  }
  for (const key of list.keys) q = q.orderBy(sql.ref(key.ref), desc ? 'desc' : 'asc');
  const rows = await q.limit(limit + 1).execute();
  const hasMore = rows.length > limit;
  const served = hasMore ? rows.slice(0, limit) : rows;
  const last = served[served.length - 1];
  return {
    items: served.map((row) => map(row as O)),
    next_cursor:
      hasMore && last
        ? page.codec.encode(
            scope,
            list.keys.map((_, i) => last[`cursor_${i}`] as string),
          )
        : null,
    has_more: hasMore,
  };
}
