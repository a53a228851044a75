import { Type } from 'typebox';
import { Timestamp, Uuid } from '../platform/schemas.ts';
import type { CombinationRow } from './combinations.queries.ts';

export const CombinationView = Type.Object({
  id: Uuid,
  name: Type.String(),
  resource_ids: Type.Array(Uuid),
  capacity_min: Type.Integer({ format: 'int32' }),
  capacity_max: Type.Integer({ format: 'int32' }),
  is_active: Type.Boolean(),
  created_at: Timestamp,
});

export const toCombinationView = (row: CombinationRow) => ({
  ...row,
  created_at: row.created_at.toISOString(),
});
