import type { FastifyRequest } from 'fastify';

const CUSTOMER_FIELDS = ['first_name', 'last_name', 'email', 'phone'];

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A preValidation hook for bodies that carry a customer: the customer's fields are accepted flat
 * (`first_name`, ...) or nested as `customer: {...}`, and turned into the `form` the route's
 * schema checks, so one schema validates both and a 422 names every missing field at once.
 * A body that mixes both forms, or a `customer` that is not such an object, is left as it came
 * for the schema to refuse.
 */
export function acceptCustomerFlatOrNested(form: 'flat' | 'nested') {
  return async (request: FastifyRequest): Promise<void> => {
    const body = request.body;
    if (!isPlainObject(body)) return;
    const flatKeys = CUSTOMER_FIELDS.filter((key) => key in body);
    if (form === 'flat') {
      const nested = body.customer;
      if (!isPlainObject(nested) || flatKeys.length > 0) return;
      if (!Object.keys(nested).every((key) => CUSTOMER_FIELDS.includes(key))) return;
      const { customer: _, ...rest } = body;
      request.body = { ...rest, ...nested };
      return;
    }
    if ('customer' in body || flatKeys.length === 0) return;
    const rest = { ...body };
    const customer: Record<string, unknown> = {};
    for (const key of flatKeys) {
      customer[key] = rest[key];
      delete rest[key];
    }
    request.body = { ...rest, customer };
  };
}
