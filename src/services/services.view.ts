import { Type } from 'typebox';
import { Nullable, Timestamp, Uuid } from '../platform/schemas.ts';
import type { ServiceRow } from './services.queries.ts';

export const ServiceView = Type.Object({
  id: Uuid,
  name: Type.String(),
  description: Nullable(Type.String()),
  duration_minutes: Type.Integer({ format: 'int32' }),
  buffer_before_minutes: Type.Integer({ format: 'int32' }),
  buffer_after_minutes: Type.Integer({ format: 'int32' }),
  price_cents: Nullable(Type.Integer({ format: 'int32' })),
  resource_ids: Type.Array(Uuid, { description: 'resources that may perform it; empty means any' }),
  is_active: Type.Boolean(),
  requirements: Type.Array(
    Type.Object({
      name: Type.String(),
      resource_ids: Type.Array(Uuid),
      count: Type.Integer({ format: 'int32' }),
    }),
    { description: 'the groups a booking holds resources of together; empty for one resource' },
  ),
  seats: Nullable(
    Type.Integer({ format: 'int32', description: 'a class: the seats of one start; null for no class' }),
  ),
  created_at: Timestamp,
});

export const toServiceView = (row: ServiceRow) => ({ ...row, created_at: row.created_at.toISOString() });
