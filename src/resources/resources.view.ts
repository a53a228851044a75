import { Type } from 'typebox';
import { Nullable, PartySize, Timestamp, Uuid } from '../platform/schemas.ts';
import type { ResourceRow } from './resources.queries.ts';

/** The request fields of a table's or a combination's seats (checked by `checkSeatRange`). */
export const SeatRangeFields = {
  capacity_min: PartySize({ description: 'smallest party it takes' }),
  capacity_max: PartySize({ description: 'largest party it takes' }),
};

export const ResourceView = Type.Object({
  id: Uuid,
  name: Type.String(),
  resource_type: Nullable(Type.String()),
  capacity_min: Type.Integer({ format: 'int32' }),
  capacity_max: Type.Integer({ format: 'int32' }),
  section: Nullable(Type.String()),
  display_order: Type.Integer({ format: 'int32' }),
  is_active: Type.Boolean(),
  created_at: Timestamp,
});

export const toResourceView = (row: ResourceRow) => ({ ...row, created_at: row.created_at.toISOString() });
