/**
 * JSON schemas of the booking server's answers derived from the spec's own definitions
 * (maps-booking-v3.proto, read by protobufjs), independent of the server's code: every field a
 * message has, typed as proto3's JSON mapping writes it (int64 as a string of digits, enums by
 * name), and no field it does not have.
 */
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import protobuf from 'protobufjs';

const root = new protobuf.Root().loadSync(
  fileURLToPath(new URL('./maps-booking-v3.proto', import.meta.url)),
  {
    keepCase: true,
  },
);
root.resolveAll();

const INTEGERS = new Set(['int32', 'uint32', 'sint32', 'fixed32', 'sfixed32']);
const LONGS = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);

/** How an int64 may be written: as a proto3 JSON printer writes it, or also as a number, as parsers take it. */
type Longs = 'printed' | 'parsed';

function valueSchema(field: protobuf.Field, longs: Longs): object {
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Enum) return { type: 'string', enum: Object.keys(resolved.values) };
  if (resolved instanceof protobuf.Type) return messageSchema(resolved, longs);
  if (INTEGERS.has(field.type)) return { type: 'integer' };
  if (LONGS.has(field.type)) {
    const printed = { type: 'string', pattern: '^-?[0-9]+$' };
    return longs === 'printed' ? printed : { anyOf: [printed, { type: 'integer' }] };
  }
  if (field.type === 'bool') return { type: 'boolean' };
  if (field.type === 'double' || field.type === 'float') return { type: 'number' };
  return { type: 'string' };
}

function messageSchema(type: protobuf.Type, longs: Longs): object {
  const properties: Record<string, object> = {};
  for (const field of type.fieldsArray) {
    const value = valueSchema(field, longs);
    properties[field.name] = field.repeated ? { type: 'array', items: value } : value;
  }
  return { type: 'object', properties, additionalProperties: false };
}

const ajv = new Ajv({ allErrors: true, strict: false });
const service = root.lookupService('ext.maps.booking.partner.v3.BookingService');

for (const method of service.methodsArray) method.resolve();
const schemas = (of: (method: protobuf.Method) => protobuf.Type, longs: Longs) =>
  Object.fromEntries(
    service.methodsArray.map((method) => [method.name, ajv.compile(messageSchema(of(method), longs))]),
  ) as Record<string, ValidateFunction>;

/** Each RPC's answer as this server must print it, by method name. */
export const v3ResponseSchemas = schemas((method) => method.resolvedResponseType!, 'printed');
/** Each RPC's answer as a parser takes it: what the spec's pages publish. */
export const v3PublishedSchemas = schemas((method) => method.resolvedResponseType!, 'parsed');
/** Each RPC's request as a parser takes it: what a partner may send. */
export const v3RequestSchemas = schemas((method) => method.resolvedRequestType!, 'parsed');
