import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HTTPMethods,
  onRequestAsyncHookHandler,
  preValidationAsyncHookHandler,
  RouteHandlerMethod,
} from 'fastify';
import { type Static, type TSchema, Type } from 'typebox';
import { principalOf, requireBusiness } from './access.ts';
import type { Tx } from './db.ts';
import { commitReply } from './idempotency.ts';
import { type ListRoute, listRoute } from './pagination.ts';

type BusinessPrincipal = ReturnType<typeof principalOf>;
type SuccessStatus = Parameters<typeof commitReply>[2];

/** What a change route is told: what the business's caller sent, checked against its schemas. */
export interface ChangeInput<P extends TSchema, B extends TSchema> {
  params: Static<P>;
  body: Static<B>;
}

/**
 * A route by which a business's caller changes something: guarded by `onRequest` (a
 * `requireBusiness`), run in one transaction (`commitReply`, so an `Idempotency-Key` replays it)
 * and answered with the one success status of `response` and what `change` returns.
 */
export interface ChangeRoute<P extends TSchema, B extends TSchema> {
  onRequest: onRequestAsyncHookHandler;
  /** The route's own settings (`writes`, `sensitive`). */
  config?: Record<string, unknown>;
  /** Reshapes what was sent before the schemas check it (`bareArrayAs`). */
  preValidation?: preValidationAsyncHookHandler;
  operationId: string;
  tags: string[];
  summary: string;
  description?: string;
  params?: P;
  body?: B;
  /** Its success (one of 200, 201, 202, 204) and the refusals to document beside the guard's. */
  response: Record<number, TSchema>;
  change: (tx: Tx, principal: BusinessPrincipal, input: ChangeInput<P, B>) => Promise<unknown>;
}

function successOf(operationId: string, response: Record<number, TSchema>): SuccessStatus {
  const successes = Object.keys(response)
    .map(Number)
    .filter((status) => status >= 200 && status < 300);
  if (successes.length !== 1) throw new Error(`${operationId}: a change route answers one success status`);
  return successes[0] as SuccessStatus;
}

/**
 * A list replaced whole is sent as a bare array, its documented form; wrapped as `{[field]: list}`
 * before validation, one schema names a bad item's field as `field[2].open_time`.
 */
export const bareArrayAs =
  (field: string): preValidationAsyncHookHandler =>
  async (request) => {
    if (Array.isArray(request.body)) request.body = { [field]: request.body };
  };

/** Declares `method url`, as `ChangeRoute` says. */
export function changeRoute<P extends TSchema = TSchema, B extends TSchema = TSchema>(
  app: FastifyInstance,
  method: HTTPMethods,
  url: string,
  { onRequest, config, preValidation, change, ...schema }: ChangeRoute<P, B>,
): void {
  const status = successOf(schema.operationId, schema.response);
  app.route({
    method,
    url,
    onRequest,
    config,
    preValidation,
    schema,
    handler: async (request, reply) => {
      const principal = principalOf(request);
      return commitReply(request, reply, status, (tx) =>
        change(tx, principal, request as unknown as ChangeInput<P, B>),
      );
    },
  });
}

type Guarded<R> = Omit<R, 'tags' | 'onRequest'> & { tags?: string[]; onRequest?: onRequestAsyncHookHandler };

/** What a route was sent, typed by its schemas, as its own handler reads it. */
export type SentTo<P extends TSchema, Q extends TSchema, B extends TSchema> = FastifyRequest<{
  Params: Static<P>;
  Querystring: Static<Q>;
  Body: Static<B>;
}>;

/** A route whose handler is its own: its texts, schemas and settings, as Fastify takes them. */
export interface OwnRoute<P extends TSchema, Q extends TSchema, B extends TSchema> {
  config?: Record<string, unknown>;
  preValidation?: preValidationAsyncHookHandler;
  operationId: string;
  summary: string;
  description?: string;
  deprecated?: boolean;
  params?: P;
  querystring?: Q;
  body?: B;
  response: Record<number, TSchema>;
  handler: (request: SentTo<P, Q, B>, reply: FastifyReply) => Promise<unknown>;
}

/**
 * What an area's routes share: the tag they are listed under, their usual guards (`read` for its
 * lists and reads, `write` for its changes and removals; a route names its own guard where it
 * differs) and the settings of its changes (`writes`).
 */
export interface AreaRoutes {
  tags: string[];
  read?: onRequestAsyncHookHandler;
  write?: onRequestAsyncHookHandler;
  config?: Record<string, unknown>;
}

/** Declares an area's routes with what `AreaRoutes` says they share. */
export function areaRoutes(
  app: FastifyInstance,
  {
    tags,
    read = requireBusiness({ scope: 'read' }),
    write = requireBusiness({ scope: 'write' }),
    config: changes,
  }: AreaRoutes,
) {
  const change = <P extends TSchema = TSchema, B extends TSchema = TSchema>(
    method: HTTPMethods,
    url: string,
    route: Guarded<ChangeRoute<P, B>>,
  ) =>
    changeRoute<P, B>(app, method, url, {
      onRequest: write,
      tags,
      ...route,
      config: { ...changes, ...route.config },
    });
  return {
    list: (url: string, route: Guarded<ListRoute>) =>
      listRoute(app, url, { onRequest: read, tags, ...route }),
    change,
    /** A removal: `DELETE url`, answered 204 with no body; `refusals` documents its own refusals. */
    remove: <P extends TSchema = TSchema>(
      url: string,
      {
        refusals,
        ...route
      }: Guarded<Omit<ChangeRoute<P, TSchema>, 'body' | 'response'>> & { refusals?: Record<number, TSchema> },
    ) => change<P>('DELETE', url, { ...route, response: { 204: Type.Null(), ...refusals } }),
    route: <P extends TSchema = TSchema, Q extends TSchema = TSchema, B extends TSchema = TSchema>(
      method: HTTPMethods,
      url: string,
      { onRequest, config, preValidation, handler, tags: own, ...schema }: Guarded<OwnRoute<P, Q, B>>,
    ) => {
      const reads = method === 'GET';
      app.route({
        method,
        url,
        onRequest: onRequest ?? (reads ? read : write),
        config: reads ? config : { ...changes, ...config },
        preValidation,
        schema: { tags: own ?? tags, ...schema },
        // Fastify types a handler by the route's generics; `SentTo` states them from the schemas.
        handler: handler as unknown as RouteHandlerMethod,
      });
    },
  };
}
