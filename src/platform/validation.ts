import { AjvCompiler, type BuildCompilerFromPool } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifySchemaCompiler } from 'fastify';

type RouteSchema = Parameters<FastifySchemaCompiler<unknown>>[0];
type Compile = ReturnType<BuildCompilerFromPool>;

/** Every part of a request: unknown fields are refused, defaults filled in, every issue reported. */
const RULES = { removeAdditional: false, allErrors: true, useDefaults: true } as const;

/**
 * Query strings, path params and headers are text, so they are coerced to their schema's types
 * (`?limit=10`, `?latest=true`, a single `?status=a` as `[a]`). A JSON body carries its own types:
 * `"5"` for an integer or `42` for a string is the client's mistake, refused rather than converted.
 */
export function requestValidators(): BuildCompilerFromPool {
  return (externalSchemas) => {
    const coercing = validatorPool(externalSchemas, { customOptions: { ...RULES, coerceTypes: 'array' } });
    const strict = validatorPool(externalSchemas, { customOptions: { ...RULES, coerceTypes: false } });
    // Fastify hands a compiler the whole route schema definition; the pool's declared type names only the schema.
    const compile = (route: RouteSchema) => (route.httpPart === 'body' ? strict : coercing)(route as never);
    const shared = JSON.stringify(externalSchemas);
    return onceBySchema(
      compiledValidators,
      compile,
      (route) => `${shared}|${route.httpPart === 'body'}|${JSON.stringify(route.schema)}`,
    ) as unknown as Compile;
  };
}

/*
 * Many routes share a schema (the error body of every status, ids, paging): each distinct one is
 * compiled once instead of once per route and status, which was most of the time an app took to
 * start. Once per process rather than per app: a compiled function depends on nothing but the
 * schemas and options in its key, and a test process builds dozens of apps.
 */
const compiledValidators = new Map<string, unknown>();
const compiledSerializers = new Map<string, unknown>();
/**
 * Likewise the Ajv instances that compile them, one per shared schemas and options: each new one
 * compiles JSON Schema's meta-schema first, a quarter of the time a test app took to build once
 * its routes' schemas were compiled (56 to 42 ms an app).
 */
const validatorPool = AjvCompiler();

function onceBySchema<R, F>(
  compiled: Map<string, unknown>,
  compile: (route: R) => F,
  keyOf: (route: R) => string,
): (route: R) => F {
  return (route) => {
    const key = keyOf(route);
    let made = compiled.get(key) as F | undefined;
    if (made === undefined) {
      made = compile(route);
      compiled.set(key, made);
    }
    return made;
  };
}

type BuildSerializer = ReturnType<typeof SerializerSelector>;

/** Fastify's own response serializers, one per distinct schema. */
export function responseSerializers(): BuildSerializer {
  const select = SerializerSelector();
  return (externalSchemas, options) => {
    const compile = select(externalSchemas, options);
    const shared = JSON.stringify([externalSchemas, options]);
    return onceBySchema(compiledSerializers, compile, (route) => `${shared}|${JSON.stringify(route.schema)}`);
  };
}
