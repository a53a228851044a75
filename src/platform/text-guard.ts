import type { FastifyInstance } from 'fastify';
import { type FieldError, notFound, validationError } from './errors.ts';

const NUL = '\u0000';
const MESSAGE = 'must not contain NUL characters';

/** A value still to look at, and its name in the same path format as validation errors. */
interface Pending {
  value: unknown;
  path: string;
}

const child = (path: string, key: string) => (path ? `${path}.${key}` : key);

/**
 * Every string (and object key) in `root` that holds a NUL, in document order. Walks with its own
 * stack, so a deeply nested body cannot exhaust the call stack.
 */
function fieldsWithNul(root: unknown, rootName: string): FieldError[] {
  const found: FieldError[] = [];
  const pending: Pending[] = [{ value: root, path: '' }];
  while (pending.length > 0) {
    const { value, path } = pending.pop() as Pending;
    if (typeof value === 'string') {
      if (value.includes(NUL)) found.push({ field: path || rootName, message: MESSAGE });
    } else if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index--) {
        pending.push({ value: value[index], path: `${path}[${index}]` });
      }
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value);
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, item] = entries[index] as [string, unknown];
        // A key is text as well: report it here, its value under the same name would only repeat it.
        if (key.includes(NUL)) pending.push({ value: key, path: child(path, key) });
        else pending.push({ value: item, path: child(path, key) });
      }
    }
  }
  return found;
}

/**
 * PostgreSQL text cannot hold U+0000: a NUL in a body, query string or path parameter would
 * fail in the database as a 500. It is refused before validation: in the body or query as 422
 * naming the field; in the path, like any path parameter that fails validation, as 404.
 */
export function registerTextGuard(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    if (holdsNul(request.params)) return done(notFound());
    if (!holdsNul(request.query) && !holdsNul(request.body)) return done();
    done(
      validationError([
        ...fieldsWithNul(request.query, 'querystring'),
        ...fieldsWithNul(request.body, 'body'),
      ]),
    );
  });
}

/**
 * Whether `value` holds a NUL anywhere: what every request asks of its parameters, query and body.
 * The flat objects of parameters and queries are read in place, without the walk's allocations.
 */
function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes(NUL);
  if (value === null || typeof value !== 'object') return false;
  for (const key in value) {
    if (key.includes(NUL)) return true;
    const item = (value as Record<string, unknown>)[key];
    if (typeof item === 'string') {
      if (item.includes(NUL)) return true;
    } else if (item !== null && typeof item === 'object' && fieldsWithNul(item, key).length > 0) return true;
  }
  return false;
}
