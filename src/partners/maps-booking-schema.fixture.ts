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

function valueSchema(field: protobuf.Field): object {
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Enum) return { type: 'string', enum: Object.keys(resolved.values) };
  if (resolved instanceof protobuf.Type) return messageSchema(resolved);
  if (INTEGERS.has(field.type)) return { type: 'integer' };
  if (LONGS.has(field.type)) return { type: 'string', pattern: '^-?[0-9]+$' };
  if (field.type === 'bool') return { type: 'boolean' };
  if (field.type === 'double' || field.type === 'float') return { type: 'number' };
  return { type: 'string' };
}

function messageSchema(type: protobuf.Type): object {
  const properties: Record<string, object> = {};
  for (const field of type.fieldsArray) {
    const value = valueSchema(field);
    properties[field.name] = field.repeated ? { type: 'array', items: value } : value;
  }
  return { type: 'object', properties, additionalProperties: false };
}

const ajv = new Ajv({ allErrors: true, strict: false });
const service = root.lookupService('ext.maps.booking.partner.v3.BookingService');

/** Each RPC's answer schema, by method name. */
export const v3ResponseSchemas: Record<string, ValidateFunction> = Object.fromEntries(
  service.methodsArray.map((method) => {
    method.resolve();
    return [method.name, ajv.compile(messageSchema(method.resolvedResponseType!))];
  }),
);

/** Each RPC's request schema, by method name: what the spec lets a partner send. */
export const v3RequestSchemas: Record<string, ValidateFunction> = Object.fromEntries(
  service.methodsArray.map((method) => [
    method.name,
    ajv.compile(messageSchema(method.resolvedRequestType!)),
  ]),
);
